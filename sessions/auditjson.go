package sessions

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// appendEventJSON appends e as json.Marshal(e) writes it, byte for byte: an audit line is hashed
// into the chain as written, and verify reads it back. It is written by hand because it is on
// every hook's path: json.Marshal finds an Event's fields by reflection and builds its encoder
// cache anew in every process, which was most of the cost of an audit line after its system
// calls. Anything it does not write itself (details, a time json.Marshal refuses) goes through
// encoding/json, which then also gives the error. FuzzAppendEventJSON holds it to json.Marshal.
func appendEventJSON(b []byte, e *Event) ([]byte, error) {
	start := len(b)
	b = append(b, '{')
	if e.Seq != 0 {
		b = append(b, `"seq":`...)
		b = strconv.AppendInt(b, e.Seq, 10)
		b = append(b, ',')
	}
	if e.Prev != "" {
		b = append(b, `"prev":`...)
		b = appendJSONString(b, e.Prev)
		b = append(b, ',')
	}
	b = append(b, `"time":"`...)
	// AppendText writes what Time.MarshalJSON quotes, and refuses what it refuses.
	t, err := e.Time.AppendText(b)
	if err != nil {
		return marshalEvent(b[:start], e)
	}
	b = append(t, `","event":`...)
	b = appendJSONString(b, e.Event)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, e.Name)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, e.Source)
	if e.Format != "" {
		b = append(b, `,"format":`...)
		b = appendJSONString(b, e.Format)
	}
	if e.File != "" {
		b = append(b, `,"file":`...)
		b = appendJSONString(b, e.File)
	}
	b = append(b, `,"status":`...)
	b = appendJSONString(b, e.Status)
	b = append(b, `,"exitCode":`...)
	b = strconv.AppendInt(b, int64(e.ExitCode), 10)
	b = append(b, `,"durationMs":`...)
	b = strconv.AppendInt(b, e.DurationMs, 10)
	b = append(b, `,"decision":`...)
	b = appendJSONString(b, e.Decision)
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, e.Reason)
	if e.ToolUseID != "" {
		b = append(b, `,"toolUseId":`...)
		b = appendJSONString(b, e.ToolUseID)
	}
	if len(e.Details) > 0 {
		d, err := json.Marshal(e.Details)
		if err != nil {
			return marshalEvent(b[:start], e)
		}
		b = append(b, `,"details":`...)
		b = append(b, d...)
	}
	return append(b, '}'), nil
}

// marshalEvent appends json.Marshal(e) to b, or returns its error.
func marshalEvent(b []byte, e *Event) ([]byte, error) {
	j, err := json.Marshal(e)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

// appendJSONString appends s as a JSON string, escaped as json.Marshal escapes it: the HTML
// characters <, > and &, control characters (\b, \f, \n, \r, \t by name, the others as \u00XX),
// invalid UTF-8 as \ufffd, and U+2028 and U+2029.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	plain := 0 // s[plain:i] is appended as it is
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[plain:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			plain = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[plain:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[plain:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += n
			continue
		}
		i += n
		plain = i
	}
	b = append(b, s[plain:]...)
	return append(b, '"')
}
