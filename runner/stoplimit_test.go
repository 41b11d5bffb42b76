package runner

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

// stopGate is a Stop hook that appends its payload to stop.jsonl and blocks while the file block
// exists in the workspace.
const stopGate = `{"name": "gate", "command": "cat >> stop.jsonl; echo >> stop.jsonl; [ ! -e block ] || { echo 'not yet' >&2; exit 2; }"}`

// stopCounts lists "active=<stopHookActive> count=<stopBlockCount>" of every Stop payload.
func stopCounts(t *testing.T, ws string) []string {
	t.Helper()
	var out []string
	for _, p := range payloads(t, filepath.Join(ws, "stop.jsonl")) {
		out = append(out, fmt.Sprintf("active=%v count=%v", p["stopHookActive"], p["stopBlockCount"]))
	}
	return out
}

// TestStopLimit: after stopBlockLimit consecutive blocked Stops the next one is let through, with
// a warning and a capped line in the audit trail, and the extensions after the session's see it
// allowed; the count starts again after it. Stop payloads carry stopHookActive and stopBlockCount.
func TestStopLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"stopBlockLimit": 2, "hooks": {"Stop": [`+stopGate+`]}}`)
	write(t, filepath.Join(h.ws, "block"), "")
	rec := &recorder{}
	h.r.NewRegistry = func() *hooks.Registry {
		reg := hooks.NewRegistry()
		reg.RegisterFormat(extensionFormat{rec})
		return reg
	}
	id := "session-1700000000000-stops"
	var blocked []bool
	for range 4 {
		out := h.fire(Request{Event: hooks.Stop, SessionID: id})
		blocked = append(blocked, out.Blocked())
		if len(blocked) == 3 {
			res := out.Result
			if res.Decision != hooks.DecisionApprove || res.Extra["capped"] != true || len(res.Warnings) != 1 ||
				!strings.Contains(res.Warnings[0], "Stop was blocked 2 times in a row (stopBlockLimit 2): letting this Stop through; the hooks' reason was: not yet") {
				t.Errorf("capped Stop: decision %s, extra %v, warnings %q", res.Decision, res.Extra, res.Warnings)
			}
		}
	}
	if want := []bool{true, true, false, true}; !slices.Equal(blocked, want) {
		t.Errorf("blocked: %v, want %v", blocked, want)
	}
	if !slices.Equal(rec.blocked, blocked) {
		t.Errorf("a later extension saw blocked %v, want %v", rec.blocked, blocked)
	}
	want := []string{"active=false count=0", "active=true count=1", "active=true count=2", "active=false count=0"}
	if got := stopCounts(t, h.ws); !slices.Equal(got, want) {
		t.Errorf("Stop payloads: %q, want %q", got, want)
	}
	if n := strings.Count(h.stderr.String(), "agent-hooks: warning: Stop was blocked 2 times in a row"); n != 1 {
		t.Errorf("%d cap warnings on stderr, want 1: %q", n, h.stderr.String())
	}
	var trail []string
	for _, e := range h.trail(id) {
		trail = append(trail, fmt.Sprintf("%s %s %s %v", e.Name, e.Status, e.Decision, e.Details))
	}
	wantTrail := []string{
		"gate blocked block map[]", "gate blocked block map[]", "gate blocked block map[]",
		"stopBlockLimit capped approve map[stopBlockCount:2 stopBlockLimit:2]", "gate blocked block map[]",
	}
	if !slices.Equal(trail, wantTrail) {
		t.Errorf("audit trail:\n%s\nwant\n%s", strings.Join(trail, "\n"), strings.Join(wantTrail, "\n"))
	}
	if got := h.session(id).StopBlockCount; got != 1 {
		t.Errorf("stopBlockCount %d after the last block, want 1", got)
	}
}

// TestStopLimitCounts: an allowed Stop resets the count (and the record no longer has one); the
// default limit is 8; 0 is unlimited. Each Stop is told the count so far.
func TestStopLimitCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limit  string   // the stopBlockLimit member, or ""
		blocks []bool   // whether each Stop's hook blocks
		want   []bool   // whether each Stop is blocked
		counts []string // what each Stop was told
	}{
		{"reset by an allowed Stop", `"stopBlockLimit": 2,`, []bool{true, false, true}, []bool{true, false, true},
			[]string{"active=false count=0", "active=true count=1", "active=false count=0"}},
		{"default 8", "", []bool{true, true, true, true, true, true, true, true, true},
			[]bool{true, true, true, true, true, true, true, true, false}, nil},
		{"0 is unlimited", `"stopBlockLimit": 0,`, []bool{true, true, true, true, true, true, true, true, true, true},
			[]bool{true, true, true, true, true, true, true, true, true, true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, `{`+tt.limit+` "hooks": {"Stop": [`+stopGate+`]}}`)
			id := "session-1700000000000-counts"
			var got []bool
			for i, b := range tt.blocks {
				if b {
					write(t, filepath.Join(h.ws, "block"), "")
				} else if err := removeFile(filepath.Join(h.ws, "block")); err != nil {
					t.Fatal(err)
				}
				got = append(got, h.fire(Request{Event: hooks.Stop, SessionID: id}).Blocked())
				if !b {
					rec, err := json.Marshal(h.session(id))
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(string(rec), "stopBlockCount") {
						t.Errorf("after the allowed Stop %d the record still has a count: %s", i+1, rec)
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("blocked %v, want %v", got, tt.want)
			}
			counts := stopCounts(t, h.ws)
			want := tt.counts
			if want == nil { // a run of blocks from the start: each Stop is told of the ones before
				for i := range tt.blocks {
					want = append(want, fmt.Sprintf("active=%v count=%d", i > 0, i))
				}
			}
			if !slices.Equal(counts, want) {
				t.Errorf("Stop payloads %q, want %q", counts, want)
			}
		})
	}
}
