package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Native is the AutoAgent protocol (SPEC.md section 4): sh -c with {{key}} bound safely, the
// payload as JSON on stdin and in AUTOAGENT_PAYLOAD; exit 0 ok (a JSON decision on stdout is
// honoured), exit 2 block with stderr as the reason, anything else an error.
var Native Dialect = nativeDialect{}

type nativeDialect struct{}

func (nativeDialect) Prepare(inv *Invocation) (Process, error) {
	command, env := ExpandCommand(inv.Hook.Command, inv.Payload)
	stdin, err := json.Marshal(inv.Payload)
	if err != nil {
		return Process{}, fmt.Errorf("encode payload: %w", err)
	}
	payloadVar, cleanup, err := PayloadEnv("AUTOAGENT_PAYLOAD", stdin)
	if err != nil {
		return Process{}, err
	}
	protocol := []string{
		"AUTOAGENT_EVENT=" + inv.Event,
		"AUTOAGENT_SESSION_ID=" + inv.SessionID,
		"AUTOAGENT_WORKSPACE=" + inv.Workspace,
		payloadVar,
	}
	return Process{
		Argv:    []string{"sh", "-c", command},
		Env:     append(protocol, env...),
		Stdin:   stdin,
		Cleanup: cleanup,
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
	f, err := os.CreateTemp("", "agent-hooks-payload-*.json")
	if err != nil {
		return "", nil, fmt.Errorf("write payload file: %w", err)
	}
	cleanup = func() { os.Remove(f.Name()) }
	if _, err := f.Write(payloadJSON); err != nil {
		f.Close()
		cleanup()
		return "", nil, fmt.Errorf("write payload file: %w", err)
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("write payload file: %w", err)
	}
	return name + "_FILE=" + f.Name(), cleanup, nil
}

func (nativeDialect) Interpret(inv *Invocation, p *ProcessResult) Outcome {
	o := Outcome{ExitCode: p.ExitCode, Stdout: p.Stdout, Stderr: p.Stderr}
	switch {
	case p.StartErr != nil:
		o.Status, o.Reason = StatusError, "could not run: "+p.StartErr.Error()
	case p.TimedOut:
		o.Status, o.Reason = StatusTimeout, fmt.Sprintf("timed out after %s", inv.Hook.timeout())
	case p.ExitCode == 2:
		o.Status, o.Decision = StatusBlocked, DecisionBlock
		o.Reason = strings.TrimSpace(p.Stderr)
		if o.Reason == "" {
			o.Reason = "blocked by " + inv.Hook.Name + " (exit code 2)"
		}
	case p.ExitCode != 0:
		o.Status = StatusError
		o.Reason = fmt.Sprintf("exited with status %d", p.ExitCode)
		if line := firstLine(p.Stderr); line != "" {
			o.Reason += ": " + line
		}
	default:
		o.Status = StatusOK
		a, ok, err := ParseAnswer(p.Stdout)
		switch {
		case err != nil:
			o.Status, o.Reason = StatusError, "bad JSON answer: "+err.Error()
		case ok:
			o.Decision, o.Reason, o.Feedback = a.Decision, a.Reason, a.Feedback
			if a.Decision == DecisionBlock {
				o.Status = StatusBlocked
				if o.Reason == "" {
					o.Reason = "blocked by " + inv.Hook.Name
				}
			}
		}
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
