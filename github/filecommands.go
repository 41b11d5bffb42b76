package github

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sethvargo/go-githubactions"
)

// The runner's file commands: each step gets a fresh file in each of these variables and reads
// them when the step ends (actions/runner, FileCommandManager.cs). GITHUB_OUTPUT, GITHUB_ENV and
// GITHUB_STATE hold NAME=value lines and NAME<<DELIMITER here-documents; GITHUB_PATH holds one
// directory a line; GITHUB_STEP_SUMMARY holds markdown.
var fileCommands = []struct {
	env, cmd string // the variable, and go-githubactions' command name for it
	what     string // what it holds, for errors
	keyValue bool
}{
	{"GITHUB_OUTPUT", "output", "step outputs", true},
	{"GITHUB_ENV", "env", "environment variables for later steps", true},
	{"GITHUB_STATE", "state", "action state", true},
	{"GITHUB_PATH", "path", "PATH additions for later steps", false},
	{"GITHUB_STEP_SUMMARY", "step_summary", "the step summary", false},
}

// maxStepSummary is the most a step summary may hold: the runner uploads nothing of a larger one.
const maxStepSummary = 1 << 20

// summaryReserve is kept free in the step summary for agent-hooks' own, after what hooks wrote.
const summaryReserve = 64 << 10

// HookFiles are the step's file commands as the hooks see them: files of their own, so that what a
// hook writes there cannot spoil the step's. One unterminated here-document in the step's
// GITHUB_OUTPUT or GITHUB_ENV would make the runner fail the step and drop every entry after it,
// agent-hooks' own outputs included. After the hooks ran, Action.ForwardHookFiles copies what is
// well-formed to the step's files.
type HookFiles struct {
	dir   string
	files map[string]string // step variable -> the hooks' file
}

// IsolateHookFiles creates, in a new folder under dir ("" is the system's temporary folder), an
// empty file for each file command the step has.
func (a *Action) IsolateHookFiles(dir string) (*HookFiles, error) {
	h := &HookFiles{files: map[string]string{}}
	for _, fc := range fileCommands {
		if a.getenv(fc.env) == "" {
			continue
		}
		if h.dir == "" {
			if dir != "" {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					return nil, fmt.Errorf("create the hooks' file commands: %w", err)
				}
			}
			d, err := os.MkdirTemp(dir, "agent-hooks-files-*")
			if err != nil {
				return nil, fmt.Errorf("create the hooks' file commands: %w", err)
			}
			h.dir = d
		}
		path := filepath.Join(h.dir, strings.ToLower(fc.env))
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			h.Remove()
			return nil, fmt.Errorf("create the hooks' file commands: %w", err)
		}
		h.files[fc.env] = path
	}
	return h, nil
}

// Env are the variables to hand the hooks: GITHUB_OUTPUT, GITHUB_ENV, … naming their own files.
func (h *HookFiles) Env() map[string]string {
	env := make(map[string]string, len(h.files))
	for k, v := range h.files {
		env[k] = v
	}
	return env
}

// Remove deletes the hooks' files.
func (h *HookFiles) Remove() {
	if h.dir != "" {
		os.RemoveAll(h.dir)
	}
}

// ForwardHookFiles appends what the hooks wrote to their files to the step's own: the complete
// entries of GITHUB_OUTPUT, GITHUB_ENV and GITHUB_STATE (each written again with a delimiter of
// its own), the directories of GITHUB_PATH, and the markdown of GITHUB_STEP_SUMMARY (cut short
// when it would leave no room for agent-hooks' summary). It returns a warning for each entry it
// dropped: a malformed one, or a hook's output named like one of agent-hooks' own outputs.
func (a *Action) ForwardHookFiles(h *HookFiles) (warnings []string, err error) {
	var errs []error
	for _, fc := range fileCommands {
		path, ok := h.files[fc.env]
		if !ok {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("read what the hooks wrote to %s: %w", fc.env, err))
			continue
		}
		if len(raw) == 0 {
			continue
		}
		text := string(raw)
		switch {
		case fc.keyValue:
			entries, problems := ParseEnvFile(text, runtime.GOOS == "windows")
			for _, e := range entries {
				if fc.env == "GITHUB_OUTPUT" && slices.ContainsFunc(OutputNames, func(n string) bool { return strings.EqualFold(n, e.Name) }) {
					problems = append(problems, EnvFileProblem{e.Line, fmt.Sprintf("%q is an output of agent-hooks itself", e.Name)})
					continue
				}
				errs = append(errs, a.writeEntry(fc.cmd, e.Name, e.Value))
			}
			slices.SortStableFunc(problems, func(x, y EnvFileProblem) int { return x.Line - y.Line })
			for _, p := range problems {
				warnings = append(warnings, fmt.Sprintf("%s written by the hooks, line %d: %s; dropped", fc.env, p.Line, p.Msg))
			}
		case fc.env == "GITHUB_PATH":
			for _, dir := range pathLines(text) {
				errs = append(errs, a.issueFileCommand(fc.cmd, dir))
			}
		default: // GITHUB_STEP_SUMMARY
			if limit := maxStepSummary - summaryReserve; len(text) > limit {
				cut := strings.LastIndexByte(text[:limit], '\n') + 1
				if cut == 0 {
					for cut = limit; cut > 0 && !utf8.RuneStart(text[cut]); cut-- {
					}
				}
				warnings = append(warnings, fmt.Sprintf("GITHUB_STEP_SUMMARY written by the hooks is %d bytes, and a step summary holds at most %d: cut after %d bytes", len(text), maxStepSummary, cut))
				text = text[:cut] + "\n\n_… cut by agent-hooks: a step summary holds at most 1 MiB._\n"
			}
			errs = append(errs, a.issueFileCommand(fc.cmd, strings.TrimSuffix(text, "\n")))
		}
	}
	return warnings, errors.Join(errs...)
}

// EnvFileEntry is one complete entry of an environment file.
type EnvFileEntry struct {
	Line        int // where it starts, from 1
	Name, Value string
}

// EnvFileProblem is an entry of an environment file the runner would refuse.
type EnvFileProblem struct {
	Line int
	Msg  string
}

// ParseEnvFile reads an environment file (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE) by the runner's
// rules (actions/runner, EnvFileKeyValuePairs): lines end in "\n" ("\r\n" too on Windows, crlf);
// empty lines are skipped; a line whose first "=" comes before any "<<" is NAME=value; one whose
// first "<<" comes first opens a here-document NAME<<DELIMITER whose value is the lines up to one
// that is exactly DELIMITER (without the line break before it); any other line is invalid.
//
// The runner fails the step at the first malformed entry and drops the rest of the file; here a
// malformed entry is reported and parsing goes on after it, so that every complete entry is found.
// An entry with an empty name (which the runner's check misses, and which names nothing) is
// reported too.
func ParseEnvFile(text string, crlf bool) ([]EnvFileEntry, []EnvFileProblem) {
	var (
		entries  []EnvFileEntry
		problems []EnvFileProblem
	)
	r := lineReader{text: text, crlf: crlf}
	for {
		start := r.n + 1
		line, _, ok := r.next()
		if !ok {
			return entries, problems
		}
		if line == "" {
			continue
		}
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq >= 0 && (hd < 0 || eq < hd):
			name, value, _ := strings.Cut(line, "=")
			if name == "" {
				problems = append(problems, EnvFileProblem{start, "NAME=value with an empty name"})
				continue
			}
			entries = append(entries, EnvFileEntry{start, name, value})
		case hd >= 0:
			name, delim, _ := strings.Cut(line, "<<")
			if delim == "" {
				problems = append(problems, EnvFileProblem{start, fmt.Sprintf("here-document %s has no delimiter", quoteShort(name))})
				continue
			}
			// The value runs from the line after NAME<<DELIMITER to the line break before the
			// delimiter's line, line breaks as written.
			from, to, closed := r.pos, r.pos, false
			for {
				l, nl, ok := r.next()
				if !ok || l == delim {
					closed = ok
					break
				}
				if nl == "" {
					break // the last line, with no line break, is not the delimiter
				}
				to = r.pos - len(nl)
			}
			switch {
			case !closed:
				problems = append(problems, EnvFileProblem{start, fmt.Sprintf("here-document %s is not closed by a line %s", quoteShort(name), quoteShort(delim))})
			case name == "":
				problems = append(problems, EnvFileProblem{start, fmt.Sprintf("here-document with delimiter %s has an empty name", quoteShort(delim))})
			default:
				entries = append(entries, EnvFileEntry{start, name, text[from:max(from, to)]})
			}
		default:
			// Not quoted: the line may be a value, and values may be secrets.
			problems = append(problems, EnvFileProblem{start, "the line is neither NAME=value nor NAME<<DELIMITER"})
		}
	}
}

// lineReader splits text into lines as the runner's ReadLine does.
type lineReader struct {
	text string
	pos  int
	n    int // lines read
	crlf bool
}

// next returns the next line and the line break that ended it ("" for the last line without one).
func (r *lineReader) next() (line, nl string, ok bool) {
	if r.pos >= len(r.text) {
		return "", "", false
	}
	r.n++
	rest := r.text[r.pos:]
	i := strings.IndexByte(rest, '\n')
	if i < 0 {
		r.pos = len(r.text)
		return rest, "", true
	}
	r.pos += i + 1
	if r.crlf && i > 0 && rest[i-1] == '\r' {
		return rest[:i-1], "\r\n", true
	}
	return rest[:i], "\n", true
}

// pathLines are the non-empty lines of text as .NET's File.ReadAllLines reads them for
// GITHUB_PATH: a leading byte-order mark dropped, lines ending at "\r\n", "\n" or "\r".
func pathLines(text string) []string {
	text = strings.TrimPrefix(text, "\uFEFF")
	return strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' })
}

// quoteShort quotes a name or delimiter of a hook's file for a warning, cut short.
func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// writeEntry appends NAME<<DELIMITER, the value and the delimiter to the step's file of a file
// command, with a fresh delimiter the value does not contain: neither value nor name can add an
// entry of their own.
func (a *Action) writeEntry(cmd, name, value string) error {
	delim := "ghadelimiter_" + randomHex()
	for strings.Contains(value, delim) {
		delim = "ghadelimiter_" + randomHex()
	}
	eol := githubactions.EOF
	return a.issueFileCommand(cmd, name+"<<"+delim+eol+value+eol+delim)
}

// issueFileCommand appends one entry to a file command; go-githubactions panics when the file
// cannot be written, which becomes an error.
func (a *Action) issueFileCommand(cmd, msg string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			for _, fc := range fileCommands {
				if fc.cmd == cmd {
					err = fmt.Errorf("write %s (%s): %v", fc.what, fc.env, r)
				}
			}
		}
	}()
	a.gha.IssueFileCommand(&githubactions.Command{Name: cmd, Message: msg})
	return nil
}
