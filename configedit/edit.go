package configedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// Field is one member of a hook object, in the order it is written.
type Field struct {
	Key   string
	Value any
}

// Builtin is a built-in hook that a `config set-auto-…` command adds to or removes from an
// event's hooks.
type Builtin struct {
	Event   string   // the canonical event, e.g. "PostExecutionEnd"
	Aliases []string // other names of the event whose hooks count as the event's
	Type    string   // the hook type, e.g. "git-commit"
	Fields  []Field  // the hook object written when it is added ("type" first)
	After   []string // hook types it is placed after (git-push after git-commit)
	Before  []string // hook types it is placed before
}

// Set makes the config src hold the built-in (enable) or not hold it, and reports whether
// anything changed. Everything else in src is kept byte for byte. An empty src is an empty
// config.
func Set(src []byte, b Builtin, enable bool) ([]byte, bool, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		if !enable {
			return src, false, nil
		}
		src = []byte("{}\n")
	}
	out := src
	changed := false
	for range 1000 {
		next, did, err := step(out, b, enable)
		if err != nil {
			return nil, false, err
		}
		if !did {
			if changed {
				if _, err := parse(out); err != nil {
					return nil, false, fmt.Errorf("internal error: edited config does not parse: %w", err)
				}
			}
			return out, changed, nil
		}
		out, changed = next, true
	}
	return nil, false, errors.New("internal error: config edit does not converge")
}

// step makes one edit towards the goal; did is false when the goal is reached.
func step(src []byte, b Builtin, enable bool) (out []byte, did bool, err error) {
	root, err := parse(src)
	if err != nil {
		return nil, false, err
	}
	if root.Kind != jsonpos.Object {
		return nil, false, errors.New("the configuration is not a JSON object")
	}
	unit := indentUnit(src, root)
	hooksNode, _ := root.Get("hooks")
	if hooksNode == nil {
		if !enable {
			return src, false, nil
		}
		return insertMember(src, root, "hooks", `{}`, unit), true, nil
	}
	if hooksNode.Kind != jsonpos.Object {
		return nil, false, fmt.Errorf(`"hooks" is not an object`)
	}
	type found struct {
		arr  *node
		elem int
	}
	var matches []found
	var disabled *node // "enabled": false of a matching hook
	for _, name := range append([]string{b.Event}, b.Aliases...) {
		arr, _ := hooksNode.Get(name)
		if arr == nil || arr.Kind != jsonpos.Array {
			continue
		}
		for i, el := range arr.Elems {
			if hookType(el) != b.Type {
				continue
			}
			matches = append(matches, found{arr, i})
			if en, _ := el.Get("enabled"); en != nil && en.Kind == jsonpos.False {
				disabled = en
			} else if enable {
				return src, false, nil // present and enabled
			}
		}
	}
	if !enable {
		if len(matches) == 0 {
			return src, false, nil
		}
		m := matches[0]
		if len(m.arr.Elems) == 1 {
			// The event's only hook: drop the event.
			for _, mem := range hooksNode.Members {
				if mem.Value == m.arr {
					return removeMember(src, hooksNode, mem), true, nil
				}
			}
		}
		return removeElem(src, m.arr, m.elem), true, nil
	}
	if disabled != nil {
		return splice(src, disabled.Start, disabled.End, "true"), true, nil
	}
	// The event's hooks run in the file's order of its keys (the event and its aliases): go after
	// the last hook it must follow, else before the first hook it must precede, wherever they are.
	var arrs []*node
	for _, mem := range hooksNode.Members {
		if (mem.Key == b.Event || slices.Contains(b.Aliases, mem.Key)) && mem.Value.Kind == jsonpos.Array {
			arrs = append(arrs, mem.Value)
		}
	}
	var after, before *node
	afterPos, beforePos := 0, 0
	for _, a := range arrs {
		for i, el := range a.Elems {
			if slices.Contains(b.After, hookType(el)) {
				after, afterPos = a, i+1
			}
			if before == nil && slices.Contains(b.Before, hookType(el)) {
				before, beforePos = a, i
			}
		}
	}
	switch {
	case after != nil:
		return insertElem(src, after, afterPos, b.Fields, unit), true, nil
	case before != nil:
		return insertElem(src, before, beforePos, b.Fields, unit), true, nil
	}
	arr, _ := hooksNode.Get(b.Event)
	if arr == nil {
		for _, a := range b.Aliases {
			if n, _ := hooksNode.Get(a); n != nil && n.Kind == jsonpos.Array {
				arr = n
				break
			}
		}
	}
	if arr == nil {
		return insertMember(src, hooksNode, b.Event, `[]`, unit), true, nil
	}
	if arr.Kind != jsonpos.Array {
		return nil, false, fmt.Errorf("hooks.%s is not an array", b.Event)
	}
	return insertElem(src, arr, len(arr.Elems), b.Fields, unit), true, nil
}

// hookType is the "type" of a hook object ("command" when absent), "" for a non-object.
func hookType(n *node) string {
	if n.Kind != jsonpos.Object {
		return ""
	}
	t, _ := n.Get("type")
	if t == nil {
		return "command"
	}
	return t.Str
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// lineIndent is the leading whitespace of the line holding offset.
func lineIndent(src []byte, offset int) string {
	start := bytes.LastIndexByte(src[:offset], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// indentUnit guesses one level of the file's indentation: the indentation of the root's first
// member when it is on a line of its own, else two spaces.
func indentUnit(src []byte, root *node) string {
	if len(root.Members) > 0 {
		ws := src[root.Start+1 : root.Members[0].KeyStart]
		if i := bytes.LastIndexByte(ws, '\n'); i >= 0 && len(ws[i+1:]) > 0 {
			return string(ws[i+1:])
		}
	}
	return "  "
}

// multiline reports whether a container is written over several lines.
func multiline(src []byte, n *node) bool { return bytes.IndexByte(src[n.Start:n.End], '\n') >= 0 }

// insertMember adds "key": value (value is JSON text) at the end of an object.
func insertMember(src []byte, obj *node, key, value, unit string) []byte {
	k, _ := json.Marshal(key)
	text := string(k) + ": " + value
	if len(obj.Members) == 0 {
		ind := lineIndent(src, obj.Start)
		return splice(src, obj.Start, obj.End, "{\n"+ind+unit+text+"\n"+ind+"}")
	}
	// Separate it as the file separates members: the whitespace after the first comma, else the
	// whitespace before the first member.
	first := obj.Members[0]
	sep := string(src[obj.Start+1 : first.KeyStart])
	if len(obj.Members) > 1 {
		comma := bytes.IndexByte(src[first.Value.End:obj.Members[1].KeyStart], ',')
		sep = string(src[first.Value.End+comma+1 : obj.Members[1].KeyStart])
	}
	last := obj.Members[len(obj.Members)-1]
	return splice(src, last.Value.End, last.Value.End, ","+sep+text)
}

// insertElem adds a hook object at position pos of an array.
func insertElem(src []byte, arr *node, pos int, fields []Field, unit string) []byte {
	return insertValue(src, arr, pos, unit, func(ind, unit string, multi bool) string {
		return renderObject(fields, ind, unit, multi)
	})
}

// insertValue adds the value render writes at position pos of an array, laid out as the
// array's elements are: render gets the indentation of the element's line and whether to
// write it over several lines.
func insertValue(src []byte, arr *node, pos int, unit string, render func(ind, unit string, multi bool) string) []byte {
	if len(arr.Elems) == 0 {
		ind := lineIndent(src, arr.Start)
		return splice(src, arr.Start, arr.End, "[\n"+ind+unit+render(ind+unit, unit, true)+"\n"+ind+"]")
	}
	first := arr.Elems[0]
	// Separate it as the file separates elements: the whitespace after the first comma, else
	// (one element) the whitespace before it when the array is written over several lines.
	sep := string(src[arr.Start+1 : first.Start])
	if len(arr.Elems) > 1 {
		comma := bytes.IndexByte(src[first.End:arr.Elems[1].Start], ',')
		sep = string(src[first.End+comma+1 : arr.Elems[1].Start])
	} else if !strings.Contains(sep, "\n") {
		sep = ""
	}
	ind := lineIndent(src, first.Start)
	if !strings.Contains(sep, "\n") {
		ind = lineIndent(src, arr.Start)
	}
	text := render(ind, unit, multiline(src, first))
	if pos < len(arr.Elems) {
		at := arr.Elems[pos].Start
		return splice(src, at, at, text+","+sep)
	}
	last := arr.Elems[len(arr.Elems)-1]
	return splice(src, last.End, last.End, ","+sep+text)
}

// renderObject writes a hook object, over several lines (members one level below ind) or on one.
func renderObject(fields []Field, ind, unit string, multi bool) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		k, _ := json.Marshal(f.Key)
		v, _ := json.Marshal(f.Value)
		parts[i] = string(k) + ": " + string(v)
	}
	if !multi {
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "{\n" + ind + unit + strings.Join(parts, ",\n"+ind+unit) + "\n" + ind + "}"
}

// removeElem deletes element i of an array with the comma and whitespace that separated it.
func removeElem(src []byte, arr *node, i int) []byte {
	switch {
	case len(arr.Elems) == 1:
		return splice(src, arr.Start, arr.End, "[]")
	case i < len(arr.Elems)-1:
		return splice(src, arr.Elems[i].Start, arr.Elems[i+1].Start, "")
	default:
		return splice(src, arr.Elems[i-1].End, arr.Elems[i].End, "")
	}
}

// removeMember deletes a member of an object with its separator.
func removeMember(src []byte, obj *node, m jsonpos.Member) []byte {
	i := 0
	for j, x := range obj.Members {
		if x.KeyStart == m.KeyStart {
			i = j
		}
	}
	switch {
	case len(obj.Members) == 1:
		return splice(src, obj.Start, obj.End, "{}")
	case i < len(obj.Members)-1:
		return splice(src, m.KeyStart, obj.Members[i+1].KeyStart, "")
	default:
		return splice(src, obj.Members[i-1].Value.End, m.Value.End, "")
	}
}
