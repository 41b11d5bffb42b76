package configedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// HostHook is a command hook in an agent host's settings, in the shape Claude Code's
// settings.json and Codex's hooks.json share:
//
//	{"hooks": {"<Event>": [{"hooks": [{"type": "command", "command": "…", "timeout": 600}]}]}}
type HostHook struct {
	Event   string
	Command string
	Timeout int // in the host's unit (seconds; Gemini CLI's milliseconds)
	// Extra are members the hook must also hold, set on an existing hook as well (Cursor's
	// "failClosed": true).
	Extra []Field
}

// HostShape is where a host's settings keep a command hook.
type HostShape struct {
	// Flat lists the hooks right under the event (Copilot's hooks files), not in matcher groups.
	Flat bool
	// CommandKey and TimeoutKey name the hook's command and its timeout in seconds.
	CommandKey, TimeoutKey string
	// Empty is a new settings file, before the hooks are added.
	Empty string
	// Untyped: a new hook is written without "type" (Cursor's hooks.json has none).
	Untyped bool
	// Version, when not 0, is the "version" a file the hooks are added to must say; it is added
	// where it is missing.
	Version int
}

// GroupedShape is the shape Claude Code's settings.json and Codex's hooks.json share.
var GroupedShape = HostShape{CommandKey: "command", TimeoutKey: "timeout", Empty: "{}\n"}

// SetHostHooks makes the host settings src hold exactly want among the command hooks that mine
// reports as the caller's (by their command): one for each wanted event, with the wanted
// command and timeout, and none on other events. It edits the text in place, so every other
// key, hook and group keeps its bytes; a hook of the caller's found under a matcher stays
// there. A group left with no hooks is removed, and so is an event left with no group. It
// reports whether anything changed. An empty src is an empty settings file.
func SetHostHooks(src []byte, want []HostHook, mine func(command string) bool) ([]byte, bool, error) {
	return SetHostHooksIn(GroupedShape, src, want, mine)
}

// SetHostHooksIn is SetHostHooks for settings of the given shape.
func SetHostHooksIn(shape HostShape, src []byte, want []HostHook, mine func(command string) bool) ([]byte, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		if len(want) == 0 {
			return src, false, nil
		}
		src = []byte(shape.Empty)
	}
	out := src
	changed := false
	for range 10000 {
		next, did, err := hostStep(shape, out, want, mine)
		if err != nil {
			return nil, false, err
		}
		if !did {
			if changed {
				if _, err := parse(out); err != nil {
					return nil, false, fmt.Errorf("internal error: edited settings do not parse: %w", err)
				}
			}
			return out, changed, nil
		}
		out, changed = next, true
	}
	return nil, false, errors.New("internal error: settings edit does not converge")
}

// hostStep makes one edit towards SetHostHooks' goal; did is false when it is reached.
func hostStep(shape HostShape, src []byte, want []HostHook, mine func(string) bool) (out []byte, did bool, err error) {
	root, err := parse(src)
	if err != nil {
		return nil, false, err
	}
	if root.Kind != jsonpos.Object {
		return nil, false, errors.New("the settings are not a JSON object")
	}
	unit := indentUnit(src, root)
	if v, _ := root.Get("version"); v == nil && shape.Version != 0 && len(want) > 0 {
		return insertMember(src, root, "version", strconv.Itoa(shape.Version), unit), true, nil
	}
	hooksNode, _ := root.Get("hooks")
	if hooksNode == nil {
		if len(want) == 0 {
			return src, false, nil
		}
		return insertMember(src, root, "hooks", `{}`, unit), true, nil
	}
	if hooksNode.Kind != jsonpos.Object {
		return nil, false, errors.New(`"hooks" is not an object`)
	}
	wanted := map[string]HostHook{}
	for _, w := range want {
		wanted[w.Event] = w
	}
	seen := map[string]bool{}
	for _, ev := range hooksNode.Members {
		w, isWanted := wanted[ev.Key]
		if ev.Value.Kind != jsonpos.Array {
			if isWanted {
				return nil, false, fmt.Errorf("hooks.%s is not an array", ev.Key)
			}
			continue
		}
		groups := ev.Value.Elems
		if shape.Flat {
			groups = []*node{ev.Value} // the event's list is the one group
		}
		for gi, group := range groups {
			list := group
			if !shape.Flat {
				list, _ = group.Get("hooks")
			}
			if group.Kind != jsonpos.Object && !shape.Flat || list == nil || list.Kind != jsonpos.Array {
				continue
			}
			for hi, h := range list.Elems {
				cmd := hostCommand(shape, h)
				if cmd == nil || !mine(cmd.Str) {
					continue
				}
				if isWanted && !seen[ev.Key] {
					seen[ev.Key] = true
					if cmd.Str != w.Command {
						return splice(src, cmd.Start, cmd.End, quoteJSON(w.Command)), true, nil
					}
					to, _ := h.Get(shape.TimeoutKey)
					switch {
					case to == nil:
						return insertMember(src, h, shape.TimeoutKey, strconv.Itoa(w.Timeout), unit), true, nil
					case string(src[to.Start:to.End]) != strconv.Itoa(w.Timeout):
						return splice(src, to.Start, to.End, strconv.Itoa(w.Timeout)), true, nil
					}
					for _, f := range w.Extra {
						text := renderJSON(f.Value, "", "", false)
						switch v, _ := h.Get(f.Key); {
						case v == nil:
							return insertMember(src, h, f.Key, text, unit), true, nil
						case !jsonEqual(src[v.Start:v.End], text):
							return splice(src, v.Start, v.End, text), true, nil
						}
					}
					continue
				}
				// Not wanted here, or a second one: remove it, with its group and event when empty.
				switch {
				case len(list.Elems) > 1:
					return removeElem(src, list, hi), true, nil
				case len(ev.Value.Elems) > 1 && !shape.Flat:
					return removeElem(src, ev.Value, gi), true, nil
				default:
					return removeMember(src, hooksNode, ev), true, nil
				}
			}
		}
	}
	for _, w := range want {
		if seen[w.Event] {
			continue
		}
		arr, _ := hooksNode.Get(w.Event)
		if arr == nil {
			return insertMember(src, hooksNode, w.Event, `[]`, unit), true, nil
		}
		return insertValue(src, arr, len(arr.Elems), unit, func(ind, unit string, multi bool) string {
			return renderJSON(hostGroup(shape, w), ind, unit, multi)
		}), true, nil
	}
	return src, false, nil
}

// hostCommand is the command string of a command hook object, nil for anything else. A flat
// hook without a type is a command hook (Copilot's default).
func hostCommand(shape HostShape, h *node) *node {
	if h.Kind != jsonpos.Object {
		return nil
	}
	t, _ := h.Get("type")
	if t == nil && !shape.Flat || t != nil && (t.Kind != jsonpos.String || t.Str != "command") {
		return nil
	}
	if c, _ := h.Get(shape.CommandKey); c != nil && c.Kind == jsonpos.String {
		return c
	}
	return nil
}

// hostGroup is what a new hook is added as: the hook itself in a flat shape, else a matcher
// group without a matcher (every tool, every source) holding it.
func hostGroup(shape HostShape, w HostHook) any {
	kv := []any{"type", "command", shape.CommandKey, w.Command, shape.TimeoutKey, w.Timeout}
	if shape.Untyped {
		kv = kv[2:]
	}
	for _, f := range w.Extra {
		kv = append(kv, f.Key, f.Value)
	}
	hook := newObject(kv...)
	if shape.Flat {
		return hook
	}
	return newObject("hooks", []any{hook})
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// object is a JSON object whose keys keep their order.
type object []struct {
	key   string
	value any
}

// newObject is the object of key, value pairs.
func newObject(kv ...any) object {
	var o object
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, struct {
			key   string
			value any
		}{kv[i].(string), kv[i+1]})
	}
	return o
}

// MarshalJSON implements json.Marshaler.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		var v bytes.Buffer
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.value); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(v.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// renderJSON writes v indented one level below ind (multi) or on one line.
func renderJSON(v any, ind, unit string, multi bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if multi {
		enc.SetIndent(ind, unit)
	}
	if err := enc.Encode(v); err != nil {
		panic(err) // the values rendered here always marshal
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	if !multi {
		// One line, spaced like the files people write by hand.
		s = strings.NewReplacer(`":`, `": `, `,"`, `, "`).Replace(s)
	}
	return s
}

func quoteJSON(s string) string { return renderJSON(s, "", "", false) }

// Position is the 1-based line and column of the value at path in the JSON document src: each
// element of path is an object key (string) or an array index (int). It returns the position of
// the deepest value of the path that exists, and ok false when src is not JSON.
func Position(src []byte, path ...any) (line, col int, ok bool) {
	doc, err := jsonpos.Parse(src)
	if err != nil {
		return 0, 0, false
	}
	n := doc.Root
	for _, p := range path {
		var next *node
		switch k := p.(type) {
		case string:
			if n.Kind == jsonpos.Object {
				next, _ = n.Get(k)
			}
		case int:
			if n.Kind == jsonpos.Array && k >= 0 && k < len(n.Elems) {
				next = n.Elems[k]
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	line, col = doc.LineCol(n.Start)
	return line, col, true
}
