package agenttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// PermissionPrompt is who answers Claude Code's permission prompt in a run. Under -p with
// --dangerously-skip-permissions (the harness's default) Claude asks nothing, and it never fires
// PermissionRequest under -p at all: the prompt exists only in an interactive session or a
// streaming one, as the Agent SDK drives it. A run with a PermissionPrompt is such a streaming
// session: stream-json on stdin and stdout, with the prompt on stdio (--permission-prompt-tool
// stdio), where the harness is the SDK's host and plays the person at the prompt.
//
// Claude shows the prompt and runs the PermissionRequest hooks side by side; the first to decide
// wins, and when a hook decides Claude withdraws the prompt (a control_cancel_request). The
// harness's person looks at the prompt only once every PermissionRequest hook has answered
// without a decision (Claude reports each hook with --include-hook-events; a decision is JSON on
// stdout: Claude 2.1.197 reads a hook's exit 2 as an error, not a deny), so a hook's decision is
// never raced, and a prompt the hooks left open always gets the person's answer.
type PermissionPrompt string

// The people at the prompt.
const (
	// PromptAllow allows the call the hooks left undecided.
	PromptAllow PermissionPrompt = "allow"
	// PromptDeny denies it with PromptDenied.
	PromptDeny PermissionPrompt = "deny"
)

// PromptDenied is the message of a PromptDeny answer: the model receives it as the tool result.
const PromptDenied = "agenttest: the person at the prompt denied this call"

// noHookPatience is how long the person waits for a PermissionRequest hook to start before
// answering a prompt that no hook looks at (a run with none configured).
const noHookPatience = 10 * time.Second

func (p PermissionPrompt) valid() bool { return p == PromptAllow || p == PromptDeny }

// PromptAnswer is one permission prompt of a run and how it ended.
type PromptAnswer struct {
	Tool string // the tool Claude asked about
	// By is "hook" when Claude withdrew the prompt because a hook decided, else the person's
	// answer: "allow" or "deny".
	By string
}

// claudeStreamArgs are Claude's arguments for a streaming session with the prompt on stdio: the
// user prompt goes to stdin, not on the command line.
func (r *Run) claudeStreamArgs() []string {
	return []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--include-hook-events", "--permission-prompt-tool", "stdio",
		"--debug", "hooks", "--debug-file", r.claudeDebugLog()}
}

// streamLine is the part of a line of Claude's stream-json output the host reads.
type streamLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Request   struct {
		Subtype  string          `json:"subtype"`
		ToolName string          `json:"tool_name"`
		Input    json.RawMessage `json:"input"`
	} `json:"request"`
	HookEvent string `json:"hook_event"`
	HookID    string `json:"hook_id"`
	Stdout    string `json:"stdout"`
}

// hookDecided reports whether a PermissionRequest hook's response, as Claude reports it,
// decided the call: a JSON decision on stdout. An exit 2 is not one: Claude Code 2.1.197 logs it
// as the hook's error and leaves its prompt open (its documentation says it denies).
func hookDecided(l streamLine) bool {
	var out struct {
		HookSpecificOutput struct {
			Decision struct {
				Behavior string `json:"behavior"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	return json.Unmarshal([]byte(strings.TrimSpace(l.Stdout)), &out) == nil && out.HookSpecificOutput.Decision.Behavior != ""
}

// promptHost is the SDK host side of one streaming Claude session.
type promptHost struct {
	person PermissionPrompt
	in     io.WriteCloser // Claude's stdin

	answers []PromptAnswer

	// The open prompt: its request id and tool, and the PermissionRequest hooks seen since.
	open               string
	tool               string
	input              json.RawMessage
	started, responded map[string]bool
	decided            bool
	asked              time.Time
}

func (h *promptHost) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = h.in.Write(append(b, '\n'))
	return err
}

func (h *promptHost) record(a PromptAnswer) { h.answers = append(h.answers, a) }

// line handles one line of Claude's output; done is true after the session's result.
func (h *promptHost) line(b []byte) (done bool, err error) {
	var l streamLine
	if json.Unmarshal(b, &l) != nil {
		return false, nil // not a JSON line: Claude's output only, nothing to answer
	}
	switch {
	case l.Type == "result":
		return true, nil
	case l.Type == "control_request" && l.Request.Subtype == "can_use_tool":
		if h.open != "" {
			return false, fmt.Errorf("claude asked about %s while its prompt about %s was open", l.Request.ToolName, h.tool)
		}
		h.open, h.tool, h.input = l.RequestID, l.Request.ToolName, l.Request.Input
		h.started, h.responded, h.decided = map[string]bool{}, map[string]bool{}, false
		h.asked = time.Now()
	case l.Type == "control_request":
		// Nothing else was offered to Claude (no SDK hooks, no SDK MCP servers): refuse it so
		// that Claude does not wait for an answer.
		return false, h.send(map[string]any{"type": "control_response", "response": map[string]any{
			"subtype": "error", "request_id": l.RequestID, "error": "agenttest: unsupported control request " + l.Request.Subtype}})
	case l.Type == "control_cancel_request" && l.RequestID == h.open && h.open != "":
		h.record(PromptAnswer{Tool: h.tool, By: "hook"})
		h.open = ""
	case l.Type == "system" && l.HookEvent == "PermissionRequest" && h.open != "":
		switch l.Subtype {
		case "hook_started":
			h.started[l.HookID] = true
		case "hook_response":
			h.responded[l.HookID] = true
			h.decided = h.decided || hookDecided(l)
		}
	}
	return false, h.answerIfUndecided(false)
}

// answerIfUndecided gives the person's answer to the open prompt once every PermissionRequest
// hook answered without deciding, or, when none started, once patience ran out (late).
func (h *promptHost) answerIfUndecided(late bool) error {
	if h.open == "" || h.decided {
		return nil
	}
	if len(h.started) == 0 && !late {
		return nil
	}
	for id := range h.started {
		if !h.responded[id] {
			return nil
		}
	}
	// An allow carries the input the call runs with: the one Claude asked about.
	resp := map[string]any{"behavior": "allow", "updatedInput": h.input}
	if h.person == PromptDeny {
		resp = map[string]any{"behavior": "deny", "message": PromptDenied}
	}
	id := h.open
	h.record(PromptAnswer{Tool: h.tool, By: string(h.person)})
	h.open = ""
	return h.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

// stream runs the Claude session cmd (not yet started) as its SDK host: it sends prompt, answers the
// permission prompts as person, and ends Claude's input after the session's result. Claude's
// output is copied to stdout as it comes. It returns the prompts and how each ended; the error
// is Wait's (an *exec.ExitError for Claude's own exit code), else the session's (a broken
// pipe, a protocol surprise).
func stream(cmd *exec.Cmd, prompt string, person PermissionPrompt, stdout io.Writer) ([]PromptAnswer, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &promptHost{person: person, in: in}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()
	herr := h.send(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": prompt}})
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	closed := false
loop:
	for {
		select {
		case b, ok := <-lines:
			if !ok {
				break loop
			}
			stdout.Write(append(b, '\n'))
			if herr != nil || closed {
				continue
			}
			done, err := h.line(b)
			if err != nil {
				herr = err
			}
			if done || err != nil {
				closed = true
				in.Close() // Claude ends once its input does
			}
		case <-tick.C:
			if herr == nil && !closed && h.open != "" && time.Since(h.asked) > noHookPatience {
				herr = h.answerIfUndecided(true)
			}
		}
	}
	if !closed {
		in.Close()
	}
	werr := cmd.Wait()
	answers := h.answers
	switch {
	case werr != nil: // Claude's own failure explains a broken session better than the pipe
		return answers, werr
	case herr != nil:
		return answers, fmt.Errorf("claude session: %w", herr)
	}
	return answers, nil
}
