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
// false the details object and prev are skipped (a listing shows neither).
func DecodeEvent(line []byte, e *Event, details bool) error {
	return decodeEvent(line, e, details, nil)
}

// decodeEvent is DecodeEvent with the strings that repeat from line to line (event, hook name,
// source, status, …) taken from in when it is not nil, so that reading a long trail allocates
// little more than its reasons.
func decodeEvent(line []byte, e *Event, details bool, in *interner) error {
	*e = Event{}
	if !details && utf8.Valid(line) && fastDecode(line, e, in) {
		return nil
	}
	*e = Event{}
	if err := json.Unmarshal(line, e); err != nil {
		return err
	}
	if !details {
		e.Details, e.Prev = nil, ""
	}
	return nil
}

// fastDecode scans a flat JSON object of the audit line's fields; false means "use
// encoding/json" (an escape it does not handle, an unexpected value, a syntax error).
func fastDecode(b []byte, e *Event, in *interner) bool {
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
			// An object or null, as encoding/json would put into the map (else it decides).
			start := i
			if i, ok = skipValue(b, i); !ok || !json.Valid(b[start:i]) || b[start] != '{' && string(b[start:i]) != "null" {
				return false
			}
		case "seq", "exitCode", "durationMs":
			j := i
			for j < len(b) && (b[j] == '-' || b[j] >= '0' && b[j] <= '9') {
				j++
			}
			digits := b[i:j]
			if len(digits) > 0 && digits[0] == '-' {
				digits = digits[1:]
			}
			if len(digits) > 1 && digits[0] == '0' {
				return false // a leading zero is not JSON
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
			if !setString(e, key, s, in) {
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
func setString(e *Event, key, s []byte, in *interner) bool {
	switch string(key) {
	case "prev":
		// not kept: a listing does not show it, and verify reads the chain itself
	case "time":
		t, ok := parseUTC(s)
		if !ok {
			var err error
			if t, err = time.Parse(time.RFC3339Nano, string(s)); err != nil {
				return false
			}
		}
		e.Time = t
	case "event":
		e.Event = in.str(0, s)
	case "name":
		e.Name = in.str(1, s)
	case "type":
		e.Type = in.str(2, s)
	case "source":
		e.Source = in.str(3, s)
	case "format":
		e.Format = in.str(4, s)
	case "file":
		e.File = in.str(5, s)
	case "status":
		e.Status = in.str(6, s)
	case "decision":
		e.Decision = in.str(7, s)
	case "reason":
		e.Reason = in.str(8, s)
	case "toolUseId":
		e.ToolUseID = string(s) // one per tool call: not worth interning
	default:
		return false
	}
	return true
}

// parseUTC reads the times agent-hooks writes, 2006-01-02T15:04:05[.fraction]Z, by hand; ok is
// false for anything else (time.Parse reads it).
func parseUTC(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(s[0:4])
	mo, ok2 := num(s[5:7])
	d, ok3 := num(s[8:10])
	h, ok4 := num(s[11:13])
	mi, ok5 := num(s[14:16])
	se, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	ns := 0
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		n, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		ns = n
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC)
	if t.Day() != d { // 31 February and the like: let time.Parse say so
		return time.Time{}, false
	}
	return t, true
}

// interner hands out one string per distinct value for the fields that repeat in a trail, up to
// a bound, so that a listing of a million lines does not allocate a million copies of "ok". The
// last value of each field is tried first: neighbouring lines mostly repeat it.
type interner struct {
	m    map[string]string
	last [9]string
}

const maxInterned = 4096

func (in *interner) str(field int, b []byte) string {
	if in == nil {
		return string(b)
	}
	if in.last[field] == string(b) {
		return in.last[field]
	}
	s, ok := in.m[string(b)]
	if !ok {
		s = string(b)
		if in.m == nil {
			in.m = map[string]string{}
		}
		if len(in.m) < maxInterned {
			in.m[s] = s
		}
	}
	in.last[field] = s
	return s
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString reads a JSON string at b[i]; it returns the contents and the index after the
// closing quote. A string with escapes (a reason quoting a matcher: tools \"Write\") is decoded
// by encoding/json, that string alone. ok is false for what is not a valid string.
// plainByte marks the bytes a JSON string holds as they are: not a quote, a backslash or a
// control character.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func scanString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	escaped := false
	for j := i + 1; j < len(b); j++ {
		for j < len(b) && plainByte[b[j]] { // most of a string: no table lookup misses
			j++
		}
		if j == len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			if !escaped {
				return b[i+1 : j], j + 1, true // the line is valid UTF-8 (decodeEvent checked)
			}
			var str string
			if json.Unmarshal(b[i:j+1], &str) != nil {
				return nil, i, false
			}
			return []byte(str), j + 1, true
		case c == '\\':
			escaped = true
			j++ // the escaped character: a quote does not end the string
		case c < 0x20:
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
