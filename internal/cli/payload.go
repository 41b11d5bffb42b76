package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// ReadPayload reads --payload (a file or - for stdin) and applies --data pairs over it.
func (a *App) ReadPayload(file string, pairs []string) (hooks.Payload, error) {
	data := hooks.Payload{}
	if file != "" {
		var src []byte
		var err error
		name := file
		if file == "-" {
			name = "<stdin>"
			src, err = io.ReadAll(a.Stdin)
		} else {
			if !filepath.IsAbs(file) {
				file = filepath.Join(a.Cwd, file)
			}
			src, err = os.ReadFile(file)
		}
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		if err := DecodePayload(name, src, &data); err != nil {
			return nil, err
		}
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--data %q: want key=value", p)
		}
		data[k] = dataValue(v)
	}
	return data, nil
}

// DecodePayload reads src, a JSON object named name in messages, into into; empty is none.
func DecodePayload(name string, src []byte, into *hooks.Payload) error {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	if p, ok := hooks.ParsePayload(src); ok {
		*into = p // src is the payload's now
		return nil
	}
	// Not one JSON object: encoding/json says what is wrong, and where.
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := jsonpos.LineCol(src, int(syn.Offset-1))
			return fmt.Errorf("payload %s:%d:%d: invalid JSON: %v", name, line, col, syn)
		}
		return fmt.Errorf("payload %s: invalid JSON: %v", name, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("payload %s: must be a JSON object", name)
	}
	if dec.More() {
		line, col := jsonpos.LineCol(src, int(dec.InputOffset()))
		return fmt.Errorf("payload %s:%d:%d: unexpected data after the JSON object", name, line, col)
	}
	*into = obj
	return nil
}

// dataValue types a --data value: JSON numbers, true, false, null, arrays and objects stay
// typed; anything else is a string.
func dataValue(v string) any {
	t := strings.TrimSpace(v)
	if t == "" {
		return v
	}
	switch t[0] {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n', '[', '{':
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) == nil && !dec.More() {
			return x
		}
	}
	return v
}
