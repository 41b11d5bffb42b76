package agents

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReadInput: one JSON object is read as soon as it is complete, whether or not stdin is
// closed; more than the cap, nothing at all, or a stdin that never delivers are errors.
func TestReadInput(t *testing.T) {
	t.Parallel()
	in, _, err := ReadInput(context.Background(), strings.NewReader(`{"hook_event_name":"Stop","n":1.50}`+"\n"), 0)
	if err != nil || in.HostEvent != "Stop" || in.Fields["n"].(interface{ String() string }).String() != "1.50" {
		t.Fatalf("%+v, %v", in, err)
	}

	// A writer that never closes stdin: the object is read anyway.
	r, w := io.Pipe()
	defer w.Close()
	go func() { _, _ = w.Write([]byte(`{"hook_event_name": "PreToolUse"}`)) }()
	if in, _, err := ReadInput(context.Background(), r, 0); err != nil || in.HostEvent != "PreToolUse" {
		t.Errorf("open stdin: %+v, %v", in, err)
	}

	// A writer that never writes: the deadline ends the wait.
	r2, w2 := io.Pipe()
	defer w2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, _, err := ReadInput(ctx, r2, 0); err == nil || err.Error() != "the agent did not send its input in time" {
		t.Errorf("silent stdin: %v", err)
	}

	for _, tc := range []struct{ in, err string }{
		{``, "no input: the agent sent nothing on stdin"},
		{`[1]`, "the input is not a JSON object: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{`null`, "the input is not a JSON object"},
		{`{"cwd": "/p"}`, `the input has no "hook_event_name"`},
		{`{"hook_event_name": "Stop", "x": "` + strings.Repeat("a", 100) + `"}`, "the input is larger than 64 bytes"},
	} {
		in, raw, err := ReadInput(context.Background(), strings.NewReader(tc.in), 64)
		if err == nil || err.Error() != tc.err || in != nil {
			t.Errorf("%.30q: %v, want %q", tc.in, err, tc.err)
		}
		if strings.Contains(tc.in, "hook_event_name") && eventNameIn(raw) != "Stop" && tc.err != `the input has no "hook_event_name"` {
			t.Errorf("%.30q: the event is not found in %q", tc.in, raw)
		}
	}
}

func TestPatchFiles(t *testing.T) {
	t.Parallel()
	patch := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/a.go\n@@\n-x\n+y\n" +
		"*** Move to: src/b.go\n*** Delete File: old.txt\n*** Update File: src/a.go\n*** End Patch\nEOF\n*** Add File: outside.txt\n"
	if got, want := PatchFiles(patch), []string{"docs/new.md", "src/a.go", "src/b.go", "old.txt"}; !slices.Equal(got, want) {
		t.Errorf("PatchFiles = %q, want %q", got, want)
	}
	if !HasPatch(patch) || HasPatch("echo hi") || PatchFiles("echo '*** Add File: x'") != nil {
		t.Error("HasPatch / text without a patch")
	}
}

func TestMargin(t *testing.T) {
	t.Parallel()
	for budget, want := range map[time.Duration]time.Duration{
		600 * time.Second: 5 * time.Second, 30 * time.Second: 3 * time.Second,
		1500 * time.Millisecond: 250 * time.Millisecond, 400 * time.Millisecond: 200 * time.Millisecond,
	} {
		if got := margin(budget); got != want {
			t.Errorf("margin(%s) = %s, want %s", budget, got, want)
		}
	}
}
