package hooks

import (
	"encoding/json"
	"fmt"
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
	return Process{
		Argv:  []string{"sh", "-c", command},
		Env:   append(ProtocolEnv(inv, stdin), env...),
		Stdin: stdin,
	}, nil
}

// ProtocolEnv is the AUTOAGENT_* environment every command hook gets.
func ProtocolEnv(inv *Invocation, payloadJSON []byte) []string {
	return []string{
		"AUTOAGENT_EVENT=" + inv.Event,
		"AUTOAGENT_SESSION_ID=" + inv.SessionID,
		"AUTOAGENT_WORKSPACE=" + inv.Workspace,
		"AUTOAGENT_PAYLOAD=" + string(payloadJSON),
	}
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
