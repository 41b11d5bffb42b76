package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/jsonpos"
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
// it is complete, whether or not stdin is closed. It returns the input and every byte it read of
// r (also when the input is not valid: a refusal finds the event in them).
func ReadInput(ctx context.Context, r io.Reader, max int64) (*Input, string, error) {
	return readInput(ctx, r, max, func(in *Input) error {
		CommonShape(in)
		return nil
	})
}

// readInput is ReadInput with the agent's decode.
func readInput(ctx context.Context, r io.Reader, max int64, decode func(*Input) error) (*Input, string, error) {
	if max <= 0 {
		max = DefaultMaxInput
	}
	type read struct {
		in  *Input
		raw string
		err error
	}
	done := make(chan read, 1)
	go func() {
		raw, end, err := readValue(r, max)
		if err != nil {
			done <- read{raw: raw, err: err}
			return
		}
		fields, err := jsonpos.DecodeObject(raw[:end])
		if err != nil {
			done <- read{raw: raw, err: fmt.Errorf("the input is not a JSON object: %w", err)}
			return
		}
		in := &Input{Fields: fields}
		if err := decode(in); err != nil {
			done <- read{raw: raw, err: err}
			return
		}
		if in.HostEvent == "" {
			done <- read{raw: raw, err: errors.New(`the input has no "hook_event_name"`)}
			return
		}
		done <- read{in: in, raw: raw}
	}()
	select {
	case r := <-done:
		return r.in, r.raw, r.err
	case <-ctx.Done():
		return nil, "", errors.New("the agent did not send its input in time")
	}
}

// The sizes of the blocks readValue reads into: small for the usual input of a few kilobytes,
// growing to a bound so that the last block's unused part stays small beside a large input.
const (
	firstBlock = 16 << 10
	maxBlock   = 1 << 20
)

// readValue reads r until one JSON value is complete (an object or an array: its closing
// bracket, found by a scanner of brackets and strings; another value: the end of r; a byte no
// JSON starts with: that byte), at most max bytes of it. It returns every byte read, in one string of that size made once, and the
// end of the value in it. Nothing but whitespace, and more than max bytes, are errors; whether
// the value is valid JSON is the decoder's to say.
func readValue(r io.Reader, max int64) (raw string, end int, err error) {
	var (
		blocks [][]byte
		total  int64
		sc     valueScanner
		rerr   error
	)
	for end = -1; end < 0 && rerr == nil && total <= max; {
		size := int64(firstBlock)
		if n := len(blocks); n > 0 {
			size = int64(min(2*cap(blocks[n-1]), maxBlock))
		}
		block := make([]byte, 0, min(size, max+1-total))
		for len(block) < cap(block) && end < 0 && rerr == nil {
			var n int
			n, rerr = r.Read(block[len(block):cap(block)])
			if e := sc.scan(block[len(block) : len(block)+n]); e >= 0 {
				end = int(total) + len(block) + e
			}
			block = block[:len(block)+n]
		}
		blocks = append(blocks, block)
		total += int64(len(block))
	}
	raw = join(blocks, int(total))
	if total > 2*maxBlock {
		// The blocks are garbage now, but the collector's next cycle is a heap twice this size
		// away: the decoder's copy of a string with escapes would come on top of them (20 MB of
		// input: 69 MB at the peak instead of 49). Their memory goes back to the system first.
		debug.FreeOSMemory()
	}
	switch {
	case end >= 0 && int64(end) <= max:
		return raw, end, nil
	case total > max || end >= 0:
		return raw, 0, fmt.Errorf("the input is larger than %d bytes", max)
	case rerr != io.EOF:
		return raw, 0, fmt.Errorf("read the input: %w", rerr)
	case !sc.started:
		return raw, 0, errors.New("no input: the agent sent nothing on stdin")
	}
	return raw, len(raw), nil // cut short, or a value with no closing bracket: the decoder says
}

// join is the blocks in one string of size bytes, copied once; each block is let go as soon as
// it is copied.
func join(blocks [][]byte, size int) string {
	var b strings.Builder
	b.Grow(size)
	for i, block := range blocks {
		// In pieces, yielding between them: the collector, which the allocation of this string
		// starts, must stop the goroutine to scan its stack, and a copy (into new pages, each a
		// fault) cannot be stopped; it spun signalling, and the signals slowed the faults, for
		// most of the time a 20 MB input took (60 ms of a mark phase of 70).
		for len(block) > 0 {
			n := min(len(block), copyPiece)
			b.Write(block[:n])
			block = block[n:]
			runtime.Gosched()
		}
		blocks[i] = nil
	}
	return b.String()
}

// copyPiece is how much join copies at once.
const copyPiece = 64 << 10

// valueScanner finds the end of the first JSON value in what it is given, a block at a time:
// the bracket that closes the object or array it starts with. It reads strings (and their
// escapes) only to know that a bracket in one is not one; it does not check the JSON.
type valueScanner struct {
	started  bool // past the whitespace before the value
	scalar   bool // the value is not an object or an array: it has no end to find
	depth    int  // of the brackets open
	inString bool
	escaped  bool // in a string, the last byte was an escaping backslash
}

// scan reads the next block and returns where in it the value ends (the offset just past its
// closing bracket), -1 when it does not end in it.
func (s *valueScanner) scan(b []byte) int {
	if s.scalar {
		return -1
	}
	for i := 0; i < len(b); i++ {
		if s.inString {
			if s.escaped {
				s.escaped = false
				continue
			}
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				s.escaped = backslashes(b[i:])%2 == 1
				return -1
			}
			// A quote after an odd number of backslashes is escaped; i is not escaped itself.
			s.inString = backslashes(b[i:i+q])%2 == 1
			i += q
			continue
		}
		c := b[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if !s.started {
			s.started = true
			if !strings.ContainsRune(`{["-0123456789tfn`, rune(c)) {
				return i + 1 // no JSON starts so: the decoder says what is wrong at once
			}
			if s.scalar = c != '{' && c != '['; s.scalar {
				return -1
			}
		}
		switch c {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth++
		case '}', ']':
			if s.depth--; s.depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// backslashes is the number of backslashes b ends with.
func backslashes(b []byte) int {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n
}

// eventNameRE finds hook_event_name in input that could not be read whole (too large, cut short),
// so that the refusal can still be written in the event's protocol. It is compiled only then:
// every hook process starts anew, and most never need it.
var eventNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"hook_event_name"\s*:\s*"([A-Za-z][A-Za-z0-9_]*)"`)
})

// eventNameIn is the hook_event_name in raw input, "" when there is none.
func eventNameIn(raw string) string {
	if m := eventNameRE().FindStringSubmatch(raw); m != nil {
		return m[1]
	}
	return ""
}
