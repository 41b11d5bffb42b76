package sessions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// ScanLines calls fn with every line of r (without its '\n') and its number, counting from 1,
// holding only one line in memory at a time: a trail of any length is read in constant space.
// complete is false for a last line without a '\n' (a torn write). The slice is valid only during
// the call. fn's error stops the scan and is returned.
func ScanLines(r io.Reader, fn func(n int, line []byte, complete bool) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte // a line longer than the buffer, assembled
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		if complete {
			line = line[:len(line)-1]
		}
		if complete || len(line) > 0 {
			if ferr := fn(n, line, complete); ferr != nil {
				return ferr
			}
		}
		if err != nil { // io.EOF
			return nil
		}
	}
}

// DecodeEvent reads one audit line into e. Lines as agent-hooks writes them (the known fields
// as flat JSON values) are read by a scanner that allocates only the strings it keeps, so a
// trail of a million lines reads in a fraction of a second; anything else goes through
// encoding/json, which also says what is wrong with a line that is not an event. With details
// false the details object is skipped (a listing does not show it).
func DecodeEvent(line []byte, e *Event, details bool) error {
	*e = Event{}
	if !details && fastDecode(line, e) {
		return nil
	}
	*e = Event{}
	if err := json.Unmarshal(line, e); err != nil {
		return err
	}
	if !details {
		e.Details = nil
	}
	return nil
}

// fastDecode scans a flat JSON object of the audit line's fields; false means "use
// encoding/json" (an escape it does not handle, an unexpected value, a syntax error).
func fastDecode(b []byte, e *Event) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		key, j, ok := scanString(b, i)
		if !ok {
			return false
		}
		i = skipWS(b, j)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return false
		}
		switch string(key) {
		case "details":
			if i, ok = skipValue(b, i); !ok {
				return false
			}
		case "seq", "exitCode", "durationMs":
			j := i
			for j < len(b) && (b[j] == '-' || b[j] >= '0' && b[j] <= '9') {
				j++
			}
			n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
			if err != nil {
				return false
			}
			switch string(key) {
			case "seq":
				e.Seq = n
			case "exitCode":
				e.ExitCode = int(n)
			default:
				e.DurationMs = n
			}
			i = j
		default:
			s, j, ok := scanString(b, i)
			if !ok {
				return false
			}
			i = j
			if !setString(e, string(key), s) {
				return false
			}
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return skipWS(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipWS(b, i+1)
	}
}

// setString stores a string field; false for a key the scanner does not know (encoding/json
// then decides, keeping unknown keys ignored exactly as it does).
func setString(e *Event, key string, s []byte) bool {
	switch key {
	case "prev":
		e.Prev = string(s)
	case "time":
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return false
		}
		e.Time = t
	case "event":
		e.Event = string(s)
	case "name":
		e.Name = string(s)
	case "type":
		e.Type = string(s)
	case "source":
		e.Source = string(s)
	case "format":
		e.Format = string(s)
	case "file":
		e.File = string(s)
	case "status":
		e.Status = string(s)
	case "decision":
		e.Decision = string(s)
	case "reason":
		e.Reason = string(s)
	default:
		return false
	}
	return true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString reads a JSON string at b[i] without escapes other than none at all; it returns the
// contents and the index after the closing quote. ok is false for an escape or invalid UTF-8
// (encoding/json decodes those).
func scanString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s = b[i+1 : j]
			return s, j + 1, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, i, false
		}
	}
	return nil, i, false
}

// skipValue skips one JSON value (an object, array, string or scalar) starting at b[i],
// honouring strings, without checking it further.
func skipValue(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return i, false
			}
			i = j + 1
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true // the end of the enclosing object
			}
			depth--
			i++
		case ',':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && i < len(b) && (b[i] == ',' || b[i] == '}') {
			return i, true
		}
	}
	return i, depth == 0
}

// lineError describes a line of the trail that is not a JSON event. A line that ends before its
// JSON does (no newline at the end of the file, or a fragment the next append ended) is a torn
// line: one write cut short by a crash or a full disk.
func lineError(path string, n int, line []byte, complete bool, err error) error {
	var syntax *json.SyntaxError
	torn := !complete ||
		errors.As(err, &syntax) && (syntax.Offset >= int64(len(bytes.TrimRight(line, "\r"))) ||
			bytes.Contains(line[1:], []byte(`{"seq":`)) || bytes.Contains(line[1:], []byte(`{"time":`)))
	if torn {
		return fmt.Errorf("%s:%d: torn line (a write cut short by a crash or a full disk): %w", path, n, err)
	}
	return fmt.Errorf("%s:%d: %w", path, n, err)
}
