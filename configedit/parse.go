// Package configedit changes agent-hooks' JSON configuration files, and the hook settings of the
// agent hosts (Claude Code's settings.json, Codex's hooks.json, Gemini CLI's settings.json,
// Cursor's hooks.json), the way a careful person would: it edits the text in place, so every
// other key, their order, the numbers as written and the file's indentation survive; it adds and removes built-in hooks and agent-hooks' own host hooks
// idempotently; and it replaces the file atomically.
package configedit

import "github.com/autoagent/agent-hooks/internal/jsonpos"

// SyntaxError is malformed JSON, or a key written twice in one object, with its position.
type SyntaxError = jsonpos.SyntaxError

// node is a JSON value with its position in the source.
type node = jsonpos.Value

// parse reads one JSON document. A repeated key is refused: an edit would change the first,
// while other readers use the last.
func parse(src []byte) (*node, error) {
	doc, err := jsonpos.Parse(src)
	if err != nil {
		return nil, err
	}
	if len(doc.Duplicates) > 0 {
		d := doc.Duplicates[0]
		return nil, &SyntaxError{Offset: d.Offset, Line: d.Line, Col: d.Col, Msg: d.Message()}
	}
	return doc.Root, nil
}
