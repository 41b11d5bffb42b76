package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Native is the AutoAgent protocol (SPEC.md sections 4 and 10): sh -c with {{key}} bound safely,
// the payload as JSON on stdin and in AUTOAGENT_PAYLOAD; exit 0 ok, exit 2 a block with stderr as
// the reason, anything else an error; a JSON block on stdout is honoured whatever the exit code.
var Native Dialect = nativeDialect{}

type nativeDialect struct{}

func (nativeDialect) Prepare(inv *Invocation) (process.Process, error) {
	x, err := template.ExpandCommand(inv.Hook.Command, inv.Payload)
	if err != nil {
		return process.Process{}, err
	}
	command := x.Command
	in, err := NewHookInput(inv.Payload)
	if err != nil {
		return process.Process{}, err
	}
	payloadVar, cleanPayload := in.Env("AUTOAGENT_PAYLOAD"), in.Cleanup
	env, cleanValues, err := x.Bind()
	if err != nil {
		cleanPayload()
		return process.Process{}, err
	}
	cleanup := cleanPayload
	if cleanValues != nil {
		cleanup = func() { cleanPayload(); cleanValues() }
	}
	protocol := []string{
		"AUTOAGENT_EVENT=" + inv.Event,
		"AUTOAGENT_SESSION_ID=" + inv.SessionID,
		"AUTOAGENT_WORKSPACE=" + inv.Workspace,
		payloadVar,
	}
	var argv []string
	if _, setsPath := inv.Hook.Env["PATH"]; !setsPath {
		argv = directArgv(command, inv.Workspace)
	}
	if argv == nil {
		argv = []string{"sh", "-c", command}
	}
	return process.Process{
		Argv:      argv,
		Env:       append(protocol, env...),
		Stdin:     in.JSON,
		StdinFile: in.File,
		Cleanup:   cleanup,
	}, nil
}

// MaxEnvPayload is the largest payload handed over in an environment variable. Linux refuses to
// start a process with one variable over 128 KiB, so a larger payload (an agent's whole output,
// say) is written to a private temporary file named by <NAME>_FILE instead; stdin always carries
// the payload whole.
const MaxEnvPayload = 64 << 10

// PayloadEnv is the NAME=payload variable of a hook process, or NAME_FILE=path for a payload
// over MaxEnvPayload; cleanup removes the file once the hook is done.
func PayloadEnv(name string, payloadJSON []byte) (variable string, cleanup func(), err error) {
	if len(payloadJSON) <= MaxEnvPayload {
		return name + "=" + string(payloadJSON), func() {}, nil
	}
	path, cleanup, err := atomicfile.WriteTemp("", "agent-hooks-payload-*.json", payloadJSON)
	if err != nil {
		return "", nil, fmt.Errorf("payload file: %w", err)
	}
	return name + "_FILE=" + path, cleanup, nil
}

// Interpret reads the outcome as AutoAgent's reference HookManager does: exit 2 blocks with
// stderr as the reason (on an event that cannot be blocked that is a warning, and the event's
// other hooks run); any other non-zero exit and a timeout are errors; and then, except after exit
// 2 on an event that can be blocked, a JSON decision on stdout is read whatever the exit code was:
// a block blocks (on an event that cannot be blocked it stops the event's remaining hooks, see
// Outcome.Halt), and the other decisions count after exit 0 only.
func (nativeDialect) Interpret(inv *Invocation, p *process.Result) Outcome {
	o := Outcome{ExitCode: p.ExitCode, Stdout: p.Stdout, Stderr: p.Stderr}
	switch {
	case p.StartErr != nil:
		o.Status, o.Reason = StatusError, "could not run: "+p.StartErr.Error()
		return o
	case p.TimedOut:
		o.Status, o.Reason = StatusTimeout, fmt.Sprintf("timed out after %s", inv.Hook.timeout())
	case p.ExitCode == 2:
		o.Status, o.Decision = StatusBlocked, DecisionBlock
		o.Reason = strings.TrimSpace(p.Stderr)
		if o.Reason == "" {
			o.Reason = "blocked by " + inv.Hook.Name + " (exit code 2)"
		}
		if CanBlock(inv.Event) {
			return o
		}
	case p.ExitCode != 0:
		o.Status = StatusError
		o.Reason = fmt.Sprintf("exited with status %d", p.ExitCode)
		if line := firstLine(p.Stderr); line != "" {
			o.Reason += ": " + line
		}
	default:
		o.Status = StatusOK
	}
	a, ok, err := ParseAnswer(p.Stdout)
	switch {
	case ok && a.Decision == DecisionBlock:
		o.Status, o.Decision, o.Reason, o.Feedback, o.Halt = StatusBlocked, DecisionBlock, a.Reason, a.Feedback, true
		if o.Reason == "" {
			o.Reason = "blocked by " + inv.Hook.Name
		}
	case o.Status != StatusOK:
		// a failed hook's other answers do not count: it did not finish its work
	case err != nil:
		o.Status, o.Reason = StatusError, "bad JSON answer: "+err.Error()
	case ok:
		o.Decision, o.Reason, o.Feedback, o.UpdatedInput = a.Decision, a.Reason, a.Feedback, a.UpdatedInput
	}
	return o
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func (h *Hook) timeout() time.Duration {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return DefaultTimeout
}

// directArgv returns the argv of a command that is a plain program invocation — words of
// letters, digits and _ . / , : + @ % - = only, the first naming an executable file that is not
// a shell builtin — so that it runs without the intermediate sh (dash forks once more for
// `sh -c prog`, a whole process per hook). Anything else, or anything it cannot be sure of,
// returns nil and runs with sh -c as written: the result is the same either way.
func directArgv(command, dir string) []string {
	words := strings.Fields(command)
	if len(words) == 0 || strings.ContainsAny(command, "\n\r") {
		return nil
	}
	for i, w := range words {
		for _, r := range w {
			plain := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
				strings.ContainsRune("_./,:+@%-", r) || r == '=' && i > 0
			if !plain {
				return nil
			}
		}
	}
	if shellBuiltins[words[0]] {
		return nil
	}
	path := words[0]
	if !strings.Contains(path, "/") {
		found, err := exec.LookPath(path)
		if err != nil {
			return nil
		}
		path = found
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if !runnable(path) {
		return nil
	}
	return append([]string{path}, words[1:]...)
}

// runnable reports whether path is an executable regular file the kernel can start by itself:
// a script with a #! line or a binary. A script without #! needs sh, which runs it as a script.
func runnable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return false
	}
	var head [4]byte
	n, _ := f.Read(head[:])
	magic := string(head[:n])
	if runtime.GOOS == "windows" {
		return strings.HasPrefix(magic, "MZ") // Windows starts no #! script by itself
	}
	return strings.HasPrefix(magic, "#!") || magic == "\x7fELF" || magic == "\xcf\xfa\xed\xfe" || magic == "\xca\xfe\xba\xbe"
}

// shellBuiltins are the POSIX special and regular builtins and reserved words: a command
// starting with one runs in sh, where the builtin (not a same-named binary) is what the user
// wrote against.
var shellBuiltins = map[string]bool{
	"alias": true, "bg": true, "break": true, "cd": true, "command": true, "continue": true,
	"echo": true, "eval": true, "exec": true, "exit": true, "export": true, "false": true,
	"fc": true, "fg": true, "getopts": true, "hash": true, "jobs": true, "kill": true,
	"local": true, "printf": true, "pwd": true, "read": true, "readonly": true, "return": true,
	"set": true, "shift": true, "test": true, "times": true, "trap": true, "true": true,
	"type": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"case": true, "esac": true, "while": true, "until": true, "for": true, "in": true,
	"function": true, "select": true, "time": true, "source": true,
}
