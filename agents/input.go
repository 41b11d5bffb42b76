package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
)

// DefaultMaxInput bounds the JSON an agent may send: Claude Code's PostToolUse of an Edit carries
// the whole file before the edit, so the bound is generous, but an agent that never stops writing
// cannot exhaust memory.
const DefaultMaxInput = 64 << 20

// Input is one hook event as the agent sent it.
type Input struct {
	Fields    map[string]any // the agent's JSON object, numbers as json.Number
	HostEvent string         // hook_event_name
	common    *Common        // what a Reader host read from Fields (Read)
}

// Common are the fields agent-hooks reads from every agent's input, whatever the agent calls
// them. Claude Code's names (session_id, cwd, transcript_path, tool_name, tool_input,
// tool_use_id) are the default; a Host that is a Reader reads its own.
type Common struct {
	SessionID      string
	Cwd            string
	TranscriptPath string
	Tool           string
	ToolInput      map[string]any
	ToolUseID      string
	// Event is the canonical event when it depends on more than the event's name (Gemini CLI's
	// AfterTool of a call that failed is PostToolUseFailure), "" when Host.Event says.
	Event string
}

// Reader is a Host whose input does not name the common fields as Claude Code does (Cursor's
// conversation_id and workspace_roots, its beforeShellExecution without tool_name).
type Reader interface {
	Common(in *Input) Common
}

// Read reads the common fields of the input the way the agent h names them.
func (in *Input) Read(h Host) {
	if r, ok := h.(Reader); ok {
		c := r.Common(in)
		in.common = &c
	}
}

// Str is the string value of the agent's field key, "" when it is not a string.
func (in *Input) Str(key string) string {
	s, _ := in.Fields[key].(string)
	return s
}

// SessionID is the agent's session id (session_id).
func (in *Input) SessionID() string {
	if in.common != nil {
		return in.common.SessionID
	}
	return in.Str("session_id")
}

// Cwd is the agent's working directory (cwd).
func (in *Input) Cwd() string {
	if in.common != nil {
		return in.common.Cwd
	}
	return in.Str("cwd")
}

// Tool is the tool call's tool (tool_name), "" for an event of no tool.
func (in *Input) Tool() string {
	if in.common != nil {
		return in.common.Tool
	}
	return in.Str("tool_name")
}

// ToolInput is the tool call's input object (tool_input).
func (in *Input) ToolInput() map[string]any {
	if in.common != nil {
		return in.common.ToolInput
	}
	m, _ := in.Fields["tool_input"].(map[string]any)
	return m
}

// ToolUseID is the agent's id of the tool call (tool_use_id).
func (in *Input) ToolUseID() string {
	if in.common != nil {
		return in.common.ToolUseID
	}
	return in.Str("tool_use_id")
}

// event is the canonical event the input says it fires, "" when its name says.
func (in *Input) event() string {
	if in.common != nil {
		return in.common.Event
	}
	return ""
}

// Payload is what native hooks get: the agent's fields unchanged, plus the agent's name and the
// normalised camelCase fields (agentSessionId, transcriptPath, toolName, toolInput, toolUseId,
// toolAliases) that read the same whichever agent fired the event. The engine adds eventName,
// sessionId, workspace and timestamp.
func (in *Input) Payload(h Host) hooks.Payload {
	p := make(hooks.Payload, len(in.Fields)+8)
	for k, v := range in.Fields {
		p[k] = v
	}
	p["agent"] = h.Name()
	set := func(key, from string) {
		if v, ok := in.Fields[from]; ok && v != nil {
			p[key] = v
		}
	}
	if c := in.common; c != nil {
		for k, v := range map[string]string{"agentSessionId": c.SessionID, "transcriptPath": c.TranscriptPath, "toolName": c.Tool, "toolUseId": c.ToolUseID} {
			if v != "" {
				p[k] = v
			}
		}
		if c.ToolInput != nil {
			p["toolInput"] = c.ToolInput
		}
	} else {
		set("agentSessionId", "session_id")
		set("transcriptPath", "transcript_path")
		set("toolName", "tool_name")
		set("toolInput", "tool_input")
		set("toolUseId", "tool_use_id")
	}
	if tool := in.Tool(); tool != "" {
		if aliases := h.ToolAliases(tool); len(aliases) > 0 {
			list := make([]any, len(aliases))
			for i, a := range aliases {
				list[i] = a
			}
			p["toolAliases"] = list
		}
	}
	return p
}

// ReadInput reads one JSON object from r, at most max bytes, giving up when ctx is done: an agent
// that never closes stdin (or never writes) cannot hang the hook. The object is read as soon as
// it is complete, whether or not stdin is closed.
func ReadInput(ctx context.Context, r io.Reader, max int64) (*Input, []byte, error) {
	if max <= 0 {
		max = DefaultMaxInput
	}
	type read struct {
		in  *Input
		raw []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		var raw bytes.Buffer
		limited := &io.LimitedReader{R: r, N: max + 1}
		dec := json.NewDecoder(io.TeeReader(limited, &raw))
		dec.UseNumber()
		var fields map[string]any
		err := dec.Decode(&fields)
		switch {
		case limited.N <= 0:
			err = fmt.Errorf("the input is larger than %d bytes", max)
		case errors.Is(err, io.EOF):
			err = errors.New("no input: the agent sent nothing on stdin")
		case err != nil:
			err = fmt.Errorf("the input is not a JSON object: %v", err)
		case fields == nil:
			err = errors.New("the input is not a JSON object")
		}
		if err != nil {
			done <- read{raw: raw.Bytes(), err: err}
			return
		}
		in := &Input{Fields: fields}
		in.HostEvent = in.Str("hook_event_name")
		if in.HostEvent == "" {
			done <- read{raw: raw.Bytes(), err: errors.New(`the input has no "hook_event_name"`)}
			return
		}
		done <- read{in: in, raw: raw.Bytes()}
	}()
	select {
	case r := <-done:
		return r.in, r.raw, r.err
	case <-ctx.Done():
		return nil, nil, errors.New("the agent did not send its input in time")
	}
}

// eventNameRE finds hook_event_name in input that could not be read whole (too large, cut short),
// so that the refusal can still be written in the event's protocol. It is compiled only then:
// every hook process starts anew, and most never need it.
var eventNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"hook_event_name"\s*:\s*"([A-Za-z][A-Za-z0-9_]*)"`)
})

// eventNameIn is the hook_event_name in raw input, "" when there is none.
func eventNameIn(raw []byte) string {
	if m := eventNameRE().FindSubmatch(raw); m != nil {
		return string(m[1])
	}
	return ""
}
