package configedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	Timeout int // seconds
}

// SetHostHooks makes the host settings src hold exactly want among the command hooks that mine
// reports as the caller's (by their command): one for each wanted event, with the wanted
// command and timeout, and none on other events. It edits the text in place, so every other
// key, hook and group keeps its bytes; a hook of the caller's found under a matcher stays
// there. A group left with no hooks is removed, and so is an event left with no group. It
// reports whether anything changed. An empty src is an empty settings file.
func SetHostHooks(src []byte, want []HostHook, mine func(command string) bool) ([]byte, bool, error) {
	return converge(src, len(want) > 0, func(src []byte) ([]byte, bool, error) { return hostStep(src, want, mine) })
}

// converge applies step, one edit at a time, until it reports nothing left to do, and checks
// that what it made still parses. An empty src is an empty settings file: {} when something is
// to be added.
func converge(src []byte, adding bool, step func([]byte) ([]byte, bool, error)) ([]byte, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		if !adding {
			return src, false, nil
		}
		src = []byte("{}\n")
	}
	out := src
	changed := false
	for range 10000 {
		next, did, err := step(out)
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
func hostStep(src []byte, want []HostHook, mine func(string) bool) (out []byte, did bool, err error) {
	root, err := parse(src)
	if err != nil {
		return nil, false, err
	}
	if root.Kind != jsonpos.Object {
		return nil, false, errors.New("the settings are not a JSON object")
	}
	unit := indentUnit(src, root)
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
		for gi, group := range ev.Value.Elems {
			list, _ := group.Get("hooks")
			if group.Kind != jsonpos.Object || list == nil || list.Kind != jsonpos.Array {
				continue
			}
			for hi, h := range list.Elems {
				cmd := hostCommand(h)
				if cmd == nil || !mine(cmd.Str) {
					continue
				}
				if isWanted && !seen[ev.Key] {
					seen[ev.Key] = true
					if cmd.Str != w.Command {
						return splice(src, cmd.Start, cmd.End, quoteJSON(w.Command)), true, nil
					}
					to, _ := h.Get("timeout")
					switch {
					case to == nil:
						return insertMember(src, h, "timeout", strconv.Itoa(w.Timeout), unit), true, nil
					case string(src[to.Start:to.End]) != strconv.Itoa(w.Timeout):
						return splice(src, to.Start, to.End, strconv.Itoa(w.Timeout)), true, nil
					}
					continue
				}
				// Not wanted here, or a second one: remove it, with its group and event when empty.
				switch {
				case len(list.Elems) > 1:
					return removeElem(src, list, hi), true, nil
				case len(ev.Value.Elems) > 1:
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
			return renderJSON(hostGroup(w), ind, unit, multi)
		}), true, nil
	}
	return src, false, nil
}

// hostCommand is the command string of a command hook object, nil for anything else.
func hostCommand(h *node) *node {
	if h.Kind != jsonpos.Object {
		return nil
	}
	if t, _ := h.Get("type"); t == nil || t.Kind != jsonpos.String || t.Str != "command" {
		return nil
	}
	if c, _ := h.Get("command"); c != nil && c.Kind == jsonpos.String {
		return c
	}
	return nil
}

// hostGroup is the matcher group a new hook is added in: no matcher (every tool, every source).
func hostGroup(w HostHook) any {
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	type group struct {
		Hooks []hook `json:"hooks"`
	}
	return group{Hooks: []hook{{Type: "command", Command: w.Command, Timeout: w.Timeout}}}
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
