package configedit

import (
	"encoding/json"
	"strings"
	"testing"
)

func mineCursor(cmd string) bool { return strings.HasPrefix(cmd, "agent-hooks hook cursor") }

var cursorHooks = []HostHook{
	{Event: "preToolUse", Command: "agent-hooks hook cursor --timeout 30", Timeout: 30, Extra: []Field{{"failClosed", true}}},
	{Event: "stop", Command: "agent-hooks hook cursor --timeout 30", Timeout: 30},
}

func setFlat(t *testing.T, src string, want []HostHook) (string, bool) {
	t.Helper()
	out, changed, err := SetHostHooksIn(flatShape, []byte(src), want, mineCursor)
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.TrimSpace(string(out))) > 0 && !json.Valid(out) {
		t.Fatalf("invalid JSON:\n%s", out)
	}
	return string(out), changed
}

func TestSetHostHooksInflatShapeCreatesTheFile(t *testing.T) {
	t.Parallel()
	got, changed := setFlat(t, "", cursorHooks)
	want := `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      {
        "command": "agent-hooks hook cursor --timeout 30",
        "timeout": 30,
        "failClosed": true
      }
    ],
    "stop": [
      {
        "command": "agent-hooks hook cursor --timeout 30",
        "timeout": 30
      }
    ]
  }
}
`
	if !changed || got != want {
		t.Errorf("got (changed %v)\n%s\nwant\n%s", changed, got, want)
	}
	if again, changed := setFlat(t, got, cursorHooks); changed || again != got {
		t.Errorf("a second install changed the file:\n%s", again)
	}
}

// The user's hooks, keys and formatting stay; agent-hooks' own entry is brought up to date in
// place (its timeout and failClosed), a duplicate of it removed; uninstall removes only it.
func TestSetHostHooksInflatShapeKeepsEverythingElse(t *testing.T) {
	t.Parallel()
	src := `{"version": 1, "hooks": {
  "preToolUse": [{"command": "./guard.sh", "matcher": "Shell"}, {"command": "agent-hooks hook cursor --timeout 30", "timeout": 10, "note": "mine"}],
  "stop": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30}, {"command": "agent-hooks hook cursor --timeout 30"}],
  "afterFileEdit": [{"command": "./format.sh"}]
}}
`
	got, changed := setFlat(t, src, cursorHooks)
	want := `{"version": 1, "hooks": {
  "preToolUse": [{"command": "./guard.sh", "matcher": "Shell"}, {"command": "agent-hooks hook cursor --timeout 30", "timeout": 30, "note": "mine", "failClosed": true}],
  "stop": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30}],
  "afterFileEdit": [{"command": "./format.sh"}]
}}
`
	if !changed || got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	removed, changed := setFlat(t, got, nil)
	wantRemoved := `{"version": 1, "hooks": {
  "preToolUse": [{"command": "./guard.sh", "matcher": "Shell"}],
  "afterFileEdit": [{"command": "./format.sh"}]
}}
`
	if !changed || removed != wantRemoved {
		t.Errorf("uninstall: got\n%s\nwant\n%s", removed, wantRemoved)
	}
}

// flatShape is a settings file of flat entries (Cursor's hooks.json).
var flatShape = HostShape{Flat: true, Untyped: true, CommandKey: "command", TimeoutKey: "timeout", Empty: "{}\n", Version: 1}
