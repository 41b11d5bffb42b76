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

// Input is one hook event as the agent sent it: its fields, and what Handle reads from them.
type Input struct {
	Fields    map[string]any // the agent's JSON object, numbers as json.Number
	HostEvent string         // the agent's name of the event (hook_event_name)

	// What the fields mean, read from Claude Code's keys (session_id, cwd, tool_name, tool_input,
	// tool_use_id, transcript_path), or by a Decoder from the agent's own.
	Session, Dir, ToolName, UseID, Transcript string
	Args                                      map[string]any

	// Event is the canonical event when the agent's name of it does not say it alone (Gemini
	// CLI's AfterTool of a call that failed is PostToolUseFailure), "" when Host.Event says.
	Event string
}

// Decoder is implemented by a Host whose input is not shaped like Claude Code's: Decode sets
// what Input holds beyond Fields from the agent's own keys. event is the event named on the
// command line (--event: the agent's name of the event, for an agent whose input does not say
// it), "" when none was.
type Decoder interface {
	Decode(in *Input, event string) error
}

// Str is the string at key of fields, "" when it is none.
func Str(fields map[string]any, key string) string {
	s, _ := fields[key].(string)
	return s
}

// CommonShape reads Input's meaning from the keys most agents share (session_id, cwd,
// hook_event_name, tool_name, tool_input: Claude Code's, which Codex and Gemini CLI use too).
func CommonShape(in *Input) {
	in.HostEvent = Str(in.Fields, "hook_event_name")
	in.Session = Str(in.Fields, "session_id")
	in.Dir = Str(in.Fields, "cwd")
	in.ToolName = Str(in.Fields, "tool_name")
	in.Args, _ = in.Fields["tool_input"].(map[string]any)
	in.UseID = Str(in.Fields, "tool_use_id")
	in.Transcript = Str(in.Fields, "transcript_path")
}

// SessionID is the agent's session id.
func (in *Input) SessionID() string { return in.Session }

// Cwd is the agent's working directory.
func (in *Input) Cwd() string { return in.Dir }

// Tool is the tool call's tool, "" for an event of no tool.
func (in *Input) Tool() string { return in.ToolName }

// ToolInput is the tool call's input object.
func (in *Input) ToolInput() map[string]any { return in.Args }

// ToolUseID is the agent's id of the tool call.
func (in *Input) ToolUseID() string { return in.UseID }

// Payload is what native hooks get: the agent's fields unchanged, plus the agent's name and the
// normalised camelCase fields (agentSessionId, transcriptPath, toolName, toolInput, toolUseId,
// toolAliases) that read the same whichever agent fired the event. The engine adds eventName,
// sessionId, workspace and timestamp.
func (in *Input) Payload(h Agent) hooks.Payload {
	p := make(hooks.Payload, len(in.Fields)+8)
	for k, v := range in.Fields {
		p[k] = v
	}
	p["agent"] = h.Name()
	set := func(key, v string) {
		if v != "" {
			p[key] = v
		}
	}
	set("agentSessionId", in.Session)
	set("transcriptPath", in.Transcript)
	set("toolName", in.ToolName)
	set("toolUseId", in.UseID)
	if in.Args != nil {
		p["toolInput"] = in.Args
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
	return readInput(ctx, r, max, func(in *Input) error {
		CommonShape(in)
		return nil
	})
}

// readInput is ReadInput with the agent's decode.
func readInput(ctx context.Context, r io.Reader, max int64, decode func(*Input) error) (*Input, []byte, error) {
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
		if err := decode(in); err != nil {
			done <- read{raw: raw.Bytes(), err: err}
			return
		}
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
