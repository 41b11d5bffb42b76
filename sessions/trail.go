package sessions

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
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

// The fields of an audit line, in the order agent-hooks writes them (Event's), and their keys as
// they appear in a line: quoted, with the colon after them.
const (
	fieldSeq = iota
	fieldPrev
	fieldTime
	fieldEvent
	fieldName
	fieldType
	fieldSource
	fieldFormat
	fieldFile
	fieldStatus
	fieldExitCode
	fieldDurationMs
	fieldDecision
	fieldReason
	fieldToolUseID
	fieldDetails
)

var fieldKeys = [...]string{`"seq":`, `"prev":`, `"time":`, `"event":`, `"name":`, `"type":`, `"source":`,
	`"format":`, `"file":`, `"status":`, `"exitCode":`, `"durationMs":`, `"decision":`, `"reason":`,
	`"toolUseId":`, `"details":`}

// keyWords are fieldKeys as two little-endian words each (none is longer than 16 bytes), with
// masks of the bytes that are the key's: a key is compared with the next 16 bytes of a line as
// two words.
var keyWords = func() (w [len(fieldKeys)][4]uint64) { // lo, loMask, hi, hiMask
	mask := func(n int) uint64 {
		if n >= 8 {
			return ^uint64(0)
		}
		return 1<<(8*max(n, 0)) - 1
	}
	for f, k := range fieldKeys {
		var b [16]byte
		copy(b[:], k)
		w[f] = [4]uint64{binary.LittleEndian.Uint64(b[:8]), mask(len(k)), binary.LittleEndian.Uint64(b[8:]), mask(len(k) - 8)}
	}
	return w
}()

// keyAt is the field whose key (as in fieldKeys) b has at i, trying the fields from next on
// (the keys of a line as agent-hooks writes it come in that order, some left out); -1 for none of
// them.
func keyAt(b []byte, i, next int) int {
	if len(b)-i < 16 {
		for f := next; f < len(fieldKeys); f++ {
			if k := fieldKeys[f]; len(b)-i >= len(k) && string(b[i:i+len(k)]) == k {
				return f
			}
		}
		return -1
	}
	lo := binary.LittleEndian.Uint64(b[i:])
	hi := binary.LittleEndian.Uint64(b[i+8:])
	for f := next; f < len(keyWords); f++ {
		if w := &keyWords[f]; lo&w[1] == w[0] && hi&w[3] == w[2] {
			return f
		}
	}
	return -1
}

// fieldOf is the field of a key, -1 for one the scanner does not know (encoding/json then
// decides, keeping unknown keys ignored exactly as it does).
func fieldOf(key []byte) int {
	for f, k := range fieldKeys {
		if string(key) == k[1:len(k)-2] {
			return f
		}
	}
	return -1
}

// fastDecode scans a flat JSON object of the audit line's fields; false means "use
// encoding/json" (an escape it does not handle, an unexpected value, a syntax error). A line as
// agent-hooks writes it has its keys in fieldKeys' order, with nothing between a key and its
// colon: each key is looked for there first, by one comparison, before a key is read as a string.
func fastDecode(b []byte, e *Event, in *interner) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	next := 0 // the field whose key is looked for first
	for {
		field := keyAt(b, i, next)
		if field >= 0 {
			i += len(fieldKeys[field])
		} else {
			key, j, ok := scanString(b, i)
			if !ok {
				return false
			}
			i = skipWS(b, j)
			if i >= len(b) || b[i] != ':' {
				return false
			}
			if field = fieldOf(key); field < 0 {
				return false
			}
			i++
		}
		next = field + 1
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		switch field {
		case fieldDetails:
			// An object or null, as encoding/json would put into the map (else it decides).
			start := i
			var ok bool
			if i, ok = skipValue(b, i); !ok || !json.Valid(b[start:i]) || b[start] != '{' && string(b[start:i]) != "null" {
				return false
			}
		case fieldSeq, fieldExitCode, fieldDurationMs:
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
			n, ok := parseInt(b[i:j])
			if !ok {
				return false
			}
			switch field {
			case fieldSeq:
				e.Seq = n
			case fieldExitCode:
				e.ExitCode = int(n)
			default:
				e.DurationMs = n
			}
			i = j
		default:
			if p, slot := internedField(e, field); p != nil {
				s, j, ok := in.value(slot, b, i)
				if !ok {
					return false
				}
				*p, i = s, j
				break
			}
			s, j, ok := scanString(b, i)
			if !ok {
				return false
			}
			i = j
			if !setString(e, field, s, in) {
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

// parseInt reads a decimal integer as strconv.ParseInt(s, 10, 64) does, by hand below 19
// digits (which cannot overflow), without making a string of it.
func parseInt(s []byte) (int64, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		n, err := strconv.ParseInt(string(s), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(s) {
		n = -n
	}
	return n, true
}

// internedField is where e keeps a field whose values repeat from line to line, and the
// interner's slot for them; nil for the other fields.
func internedField(e *Event, field int) (*string, int) {
	switch field {
	case fieldEvent:
		return &e.Event, 0
	case fieldName:
		return &e.Name, 1
	case fieldType:
		return &e.Type, 2
	case fieldSource:
		return &e.Source, 3
	case fieldFormat:
		return &e.Format, 4
	case fieldFile:
		return &e.File, 5
	case fieldStatus:
		return &e.Status, 6
	case fieldDecision:
		return &e.Decision, 7
	case fieldReason:
		return &e.Reason, 8
	}
	return nil, -1
}

// setString stores the string of a field that is not interned.
func setString(e *Event, field int, s []byte, in *interner) bool {
	switch field {
	case fieldPrev:
		// not kept: a listing does not show it, and verify reads the chain itself
	case fieldTime:
		t, ok := in.time(s)
		if !ok {
			var err error
			if t, err = time.Parse(time.RFC3339Nano, string(s)); err != nil {
				return false
			}
		}
		e.Time = t
	case fieldToolUseID:
		e.ToolUseID = string(s) // one per tool call: not worth interning
	default:
		return false
	}
	return true
}

// parseUTC reads the times agent-hooks writes, 2006-01-02T15:04:05[.fraction]Z, by hand; ok is
// false for anything else (time.Parse reads it).
func parseUTC(s []byte) (time.Time, bool) {
	minute, ok := parseMinute(s)
	if !ok {
		return time.Time{}, false
	}
	off, ok := parseSecond(s[16:])
	if !ok {
		return time.Time{}, false
	}
	return minute.Add(off), true
}

// parseMinute reads the minute of a time parseUTC reads, its first 16 bytes
// (2006-01-02T15:04), having checked the separators of the rest.
func parseMinute(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	h, ok4 := digits(s[11:13])
	mi, ok5 := digits(s[14:16])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC)
	if t.Day() != d { // 31 February and the like: let time.Parse say so
		return time.Time{}, false
	}
	return t, true
}

// parseSecond reads the rest of a time parseUTC reads after its minute, :05[.fraction]Z, as the
// time since the minute.
func parseSecond(s []byte) (time.Duration, bool) {
	if len(s) < 4 || s[0] != ':' || s[len(s)-1] != 'Z' {
		return 0, false
	}
	se, ok := digits(s[1:3])
	if !ok || se > 59 {
		return 0, false
	}
	ns := 0
	if frac := s[3 : len(s)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return 0, false
		}
		n, ok := digits(frac[1:])
		if !ok {
			return 0, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		ns = n
	}
	return time.Duration(se)*time.Second + time.Duration(ns), true
}

// digits reads a number of decimal digits only.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// interner hands out one string per distinct value for the fields that repeat in a trail, up to
// a bound, so that a listing of a million lines does not allocate a million copies of "ok". The
// last few values of each field are tried first: neighbouring lines mostly repeat them (a hook's
// name comes back with every event its config fires), and comparing a few short strings costs
// less than hashing one.
type interner struct {
	m      map[string]string
	recent [9][recentValues]string // per field, the values handed out last
	plain  [9]uint8                // per field, the values of recent that are plain (see value)
	next   [9]uint8                // per field, the slot of recent the next new value takes

	// The minute of the last time read by parseUTC (its text, 2006-01-02T15:04, and its
	// value): the lines of a trail mostly share it with the line before.
	minuteText [16]byte
	minute     time.Time
	minuteSet  bool
}

// time reads a time as parseUTC does, reading its minute again only when it differs from the
// last one's.
func (in *interner) time(s []byte) (time.Time, bool) {
	if in == nil {
		return parseUTC(s)
	}
	if !in.minuteSet || len(s) < 20 || string(s[:16]) != string(in.minuteText[:]) {
		minute, ok := parseMinute(s)
		if !ok {
			return time.Time{}, false
		}
		copy(in.minuteText[:], s[:16])
		in.minute, in.minuteSet = minute, true
	}
	off, ok := parseSecond(s[16:])
	if !ok {
		return time.Time{}, false
	}
	return in.minute.Add(off), true
}

const maxInterned = 4096

// recentValues is how many of a field's values the interner tries before its map.
const recentValues = 8

func (in *interner) str(field int, b []byte) string {
	if in == nil {
		return string(b)
	}
	recent := &in.recent[field]
	for _, s := range recent {
		if s == string(b) { // an empty slot is "", which is right for an empty value
			return s
		}
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
	k := in.next[field]
	recent[k] = s
	in.plain[field] &^= 1 << k
	if skipPlain(b, 0) == len(b) {
		in.plain[field] |= 1 << k
	}
	in.next[field] = (k + 1) % recentValues
	return s
}

// value reads the JSON string at b[i], a value of field, as scanString and str would: a string
// the line has as one of the field's recent values, quoted, is that value, found by comparing
// bytes rather than by scanning them. Only plain values are compared so (without a quote, a
// backslash or a control character): the line's bytes then are the value itself, and the
// quote after them ends it.
func (in *interner) value(field int, b []byte, i int) (string, int, bool) {
	if in != nil && i < len(b) && b[i] == '"' {
		rest := b[i+1:]
		for k, v := range &in.recent[field] {
			if in.plain[field]&(1<<k) != 0 && len(rest) > len(v) && rest[len(v)] == '"' && string(rest[:len(v)]) == v {
				return v, i + len(v) + 2, true
			}
		}
	}
	s, j, ok := scanString(b, i)
	if !ok {
		return "", i, false
	}
	return in.str(field, s), j, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
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
		j = skipPlain(b, j) // most of a string: no byte of it but the quote needs a look
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

// skipPlain returns the index of the first byte of b from j on that is not plain (plainByte),
// or len(b). It looks at eight bytes at a time while eight are left: a byte equal to a quote or
// a backslash is a zero byte of the word xored with it, and a zero byte or one below 0x20 is
// found by the borrow its subtraction causes (the lowest one exactly: a borrow only carries
// upwards, into bytes after it).
func skipPlain(b []byte, j int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		q := x ^ ('"' * ones)
		bs := x ^ ('\\' * ones)
		special := ((q - ones) &^ q) | ((bs - ones) &^ bs) | ((x - 0x20*ones) &^ x)
		if special &= highs; special != 0 {
			return j + bits.TrailingZeros64(special)/8
		}
	}
	for j < len(b) && plainByte[b[j]] {
		j++
	}
	return j
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
