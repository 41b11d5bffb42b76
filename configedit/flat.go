package configedit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// FlatHook is a command hook in the flat shape of Cursor's hooks.json, where an event's hooks
// are the command objects themselves, with no matcher group around them:
//
//	{"version": 1, "hooks": {"<event>": [{"command": "…", "timeout": 30, "failClosed": true}]}}
type FlatHook struct {
	Event string
	// Fields are the hook object's members, "command" first (a string).
	Fields []Field
}

// SetFlatHooks is SetHostHooks for the flat shape (FlatHook): src ends up holding exactly want
// among the hooks whose command mine reports as the caller's, each with the wanted fields and
// values (members it does not name are kept), and "version" set when hooks are added to a file
// without one. Everything else keeps its bytes; an event left with no hook is removed.
func SetFlatHooks(src []byte, version int, want []FlatHook, mine func(command string) bool) ([]byte, bool, error) {
	return converge(src, len(want) > 0, func(src []byte) ([]byte, bool, error) { return flatStep(src, version, want, mine) })
}

// flatStep makes one edit towards SetFlatHooks' goal; did is false when it is reached.
func flatStep(src []byte, version int, want []FlatHook, mine func(string) bool) (out []byte, did bool, err error) {
	root, err := parse(src)
	if err != nil {
		return nil, false, err
	}
	if root.Kind != jsonpos.Object {
		return nil, false, errors.New("the settings are not a JSON object")
	}
	unit := indentUnit(src, root)
	if v, _ := root.Get("version"); v == nil && len(want) > 0 {
		return insertMember(src, root, "version", fmt.Sprint(version), unit), true, nil
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
	wanted := map[string]FlatHook{}
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
		for hi, h := range ev.Value.Elems {
			cmd := flatCommand(h)
			if cmd == nil || !mine(cmd.Str) {
				continue
			}
			if isWanted && !seen[ev.Key] {
				seen[ev.Key] = true
				for _, f := range w.Fields {
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
			if len(ev.Value.Elems) > 1 {
				return removeElem(src, ev.Value, hi), true, nil
			}
			return removeMember(src, hooksNode, ev), true, nil
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
		return insertElem(src, arr, len(arr.Elems), w.Fields, unit), true, nil
	}
	return src, false, nil
}

// flatCommand is the command string of a flat command hook (no "type", or "command"), nil for
// anything else.
func flatCommand(h *node) *node {
	if h.Kind != jsonpos.Object {
		return nil
	}
	if t, _ := h.Get("type"); t != nil && (t.Kind != jsonpos.String || t.Str != "command") {
		return nil
	}
	if c, _ := h.Get("command"); c != nil && c.Kind == jsonpos.String {
		return c
	}
	return nil
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
