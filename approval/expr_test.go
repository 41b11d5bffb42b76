package approval

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExprMatch(t *testing.T) {
	t.Parallel()
	doc := decode(t, `{"status": "approved", "count": 2, "ok": true, "off": false, "none": null,
		"review": {"state": "APPROVED", "by": ["ann", "bob"]}, "odd key": "x", "list": [{"s": "done"}, {"s": "open"}]}`)
	tests := []struct {
		expr string
		want bool
	}{
		{`.status == "approved"`, true},
		{`.status == 'approved'`, true},
		{`.status != 'approved'`, false},
		{`.status == "APPROVED"`, false},
		{`.review.state == "APPROVED"`, true},
		{`.review.by[1] == "bob"`, true},
		{`.review.by[-1] == "bob"`, true},
		{`.review.by[5] == null`, true},
		{`.list[0].s == "done" && .list[1].s == "open"`, true},
		{`.["odd key"] == "x"`, true},
		{`.review["state"] == "APPROVED"`, true},
		{`.count == 2`, true},
		{`.count == 2.0`, true},
		{`.count == "2"`, false},
		{`.ok`, true},
		{`.off`, false},
		{`.none`, false},
		{`.missing`, false},
		{`.missing == null`, true},
		{`.status.deeper == null`, true},
		{`!.off`, true},
		{`!(.status == "approved")`, false},
		{`.off || .ok`, true},
		{`.off || .none || .missing`, false},
		{`.ok && (.status == "rejected" || .count == 2)`, true},
		{`.ok && .status == "rejected" || .count == 2`, true}, // && binds tighter
		{`.`, true},
		{`.review == .review`, true},
	}
	for _, tt := range tests {
		e, err := CompileExpr(tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got := e.Match(doc); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.expr, got, tt.want)
		}
	}
}

func TestExprErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		{``, `at column 1: unexpected end of expression`},
		{`.status = "approved"`, `at column 9: unexpected '=' (operators: == != && || ! and parentheses)`},
		{`status == "approved"`, `at column 1: unexpected "status" (a path starts with a dot: .status; a string is quoted: "status")`},
		{`.status == "approved`, `at column 12: unterminated string`},
		{`.a == 1 &&`, `at column 11: unexpected end of expression`},
		{`(.a == 1`, `at column 9: missing )`},
		{`.a[x]`, `at column 1: want an index or a quoted key inside [ ]`},
		{`.a[0`, `at column 1: missing ]`},
		{`.a == 1 .b`, `at column 9: unexpected ".b"`},
		{`.a >= 2`, `at column 4: unexpected '>'`},
		{`.a == [1]`, `at column 7: unexpected '['`}, // no array literals
	}
	for _, tt := range tests {
		_, err := CompileExpr(tt.expr)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.expr, err, tt.want)
		}
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func FuzzCompileExpr(f *testing.F) {
	for _, s := range []string{`.status == "approved"`, `!(.a || .b[0]) && .c != null`, `.["x"]`, `.a == 'b\'c'`} {
		f.Add(s)
	}
	doc := map[string]any{"a": []any{1.0, "x"}, "status": "approved"}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := CompileExpr(src)
		if err != nil {
			return
		}
		e.Match(doc) // must not panic
		e.Match(nil)
	})
}
