package seedfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
)

// Finish fills the parts of an outcome every seed dialect reads the same way: exit code and
// output, a process that could not start (an error) and a timeout. done is true when the outcome
// is final and the format's exit-code policy does not apply.
func Finish(p *process.Result) (o hooks.Outcome, done bool) {
	o = hooks.Outcome{Status: hooks.StatusOK, ExitCode: p.ExitCode, Stdout: p.Stdout, Stderr: p.Stderr}
	switch {
	case p.StartErr != nil:
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("start hook: %v", p.StartErr)
		return o, true
	case p.TimedOut:
		o.Status, o.Reason = hooks.StatusTimeout, "hook timed out"
		return o, true
	}
	return o, false
}

// Reason is the text of a failed hook: the last line it wrote to stderr, else to stdout, else
// its exit code.
func Reason(p *process.Result) string {
	for _, out := range []string{p.Stderr, p.Stdout} {
		if s := strings.TrimSpace(out); s != "" {
			return s[strings.LastIndexByte(s, '\n')+1:]
		}
	}
	return "exit code " + strconv.Itoa(p.ExitCode)
}

// PayloadJSON is the payload as one JSON object, the form hooks read on stdin.
func PayloadJSON(p hooks.Payload) ([]byte, error) {
	if p == nil {
		p = hooks.Payload{}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	return b, nil
}

// FileKind says what a possible hook file is.
type FileKind int

// The kinds of file Stat reports.
const (
	Missing       FileKind = iota // no such file
	NotRegular                    // a directory or something else that cannot run
	NotExecutable                 // a regular file without an execute bit
	Executable                    // a regular executable file
)

// Stat classifies path, following symbolic links. The error is an I/O failure other than the
// file not existing.
func Stat(path string) (FileKind, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Missing, nil
	case err != nil:
		return Missing, fmt.Errorf("stat %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return NotRegular, nil
	case fi.Mode().Perm()&0o111 == 0:
		return NotExecutable, nil
	}
	return Executable, nil
}

// Warning is a warning diagnostic about file (line 0: the whole file).
func Warning(file string, line, col int, format string, args ...any) hooks.Diagnostic {
	return hooks.Diagnostic{Severity: hooks.SeverityWarning, File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)}
}

// Errorf is an error diagnostic about file.
func Errorf(file string, line, col int, format string, args ...any) hooks.Diagnostic {
	return hooks.Diagnostic{Severity: hooks.SeverityError, File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)}
}

// UnknownPoint describes a hook point the format does not have, suggesting the nearest one.
func UnknownPoint(format, name string, known []string) string {
	msg := UnknownKey(format+" hook point", name, known)
	if hooks.Suggest(name, known) == "" {
		msg += " (known: " + strings.Join(known, ", ") + ")"
	}
	return msg
}

// ConfigHome is the user's configuration directory as the seed tools' shell code finds it,
// ${XDG_CONFIG_HOME:-$HOME/.config} (an empty XDG_CONFIG_HOME counts as unset); "" without either.
func ConfigHome(env hooks.LoadEnv) string {
	if env.Getenv != nil {
		if base := env.Getenv("XDG_CONFIG_HOME"); base != "" {
			return base
		}
	}
	if env.UserHome == "" {
		return ""
	}
	return filepath.Join(env.UserHome, ".config")
}
