package configedit

import (
	"encoding/json"
	"strings"
	"testing"
)

func mineAgentHooks(cmd string) bool { return strings.HasPrefix(cmd, "agent-hooks hook claude") }

var claudeHooks = []HostHook{
	{Event: "PreToolUse", Command: "agent-hooks hook claude --timeout 600", Timeout: 600},
	{Event: "SessionEnd", Command: "agent-hooks hook claude --timeout 60", Timeout: 60},
}

func setHost(t *testing.T, src string, want []HostHook) (string, bool) {
	t.Helper()
	out, changed, err := SetHostHooks([]byte(src), want, mineAgentHooks)
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.TrimSpace(string(out))) > 0 && !json.Valid(out) {
		t.Fatalf("invalid JSON:\n%s", out)
	}
	return string(out), changed
}

func TestSetHostHooksCreatesTheSettings(t *testing.T) {
	t.Parallel()
	got, changed := setHost(t, "", claudeHooks)
	want := `{
  "hooks": {
    "PreToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "agent-hooks hook claude --timeout 600",
            "timeout": 600
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "agent-hooks hook claude --timeout 60",
            "timeout": 60
          }
        ]
      }
    ]
  }
}
`
	if !changed || got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if again, changed := setHost(t, got, claudeHooks); changed || again != got {
		t.Fatalf("a second install changed the file:\n%s", again)
	}
}

// The user's settings: other keys, a hook of their own under a matcher, tabs, odd spacing.
const userSettings = `{
	"model": "opus",
	"permissions": {"allow": ["Bash(ls:*)"]},
	"hooks": {
		"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh",   "timeout": 5}]}
		],
		"Stop": []
	},
	"env": {"A": "1e3"}
}
`

func TestSetHostHooksKeepsEverythingElseAndUninstallsToTheSameBytes(t *testing.T) {
	t.Parallel()
	got, changed := setHost(t, userSettings, claudeHooks)
	want := `{
	"model": "opus",
	"permissions": {"allow": ["Bash(ls:*)"]},
	"hooks": {
		"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh",   "timeout": 5}]},
			{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600}]}
		],
		"Stop": [],
		"SessionEnd": [
			{
				"hooks": [
					{
						"type": "command",
						"command": "agent-hooks hook claude --timeout 60",
						"timeout": 60
					}
				]
			}
		]
	},
	"env": {"A": "1e3"}
}
`
	if !changed || got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	back, changed := setHost(t, got, nil)
	if !changed || back != userSettings {
		t.Fatalf("uninstall left:\n%s\nwant the original:\n%s", back, userSettings)
	}
	if _, changed := setHost(t, back, nil); changed {
		t.Fatal("a second uninstall changed the file")
	}
}

func TestSetHostHooksUpdatesItsHookWhereItIs(t *testing.T) {
	t.Parallel()
	// The user moved agent-hooks under a matcher, next to their own hook, and a second copy
	// sits on PreToolUse; an old one is on an event no longer wanted.
	src := `{"hooks": {
  "PreToolUse": [
    {"matcher": "Bash|Edit", "hooks": [
      {"type": "command", "command": "./mine.sh"},
      {"type": "command", "command": "agent-hooks hook claude"}
    ]},
    {"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 30", "timeout": 30}]}
  ],
  "Notification": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600}]}]
}}`
	got, changed := setHost(t, src, claudeHooks[:1])
	want := `{"hooks": {
  "PreToolUse": [
    {"matcher": "Bash|Edit", "hooks": [
      {"type": "command", "command": "./mine.sh"},
      {"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600}
    ]}
  ]
}}`
	if !changed || got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSetHostHooksRefusesWhatItCannotEdit(t *testing.T) {
	t.Parallel()
	for _, src := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`, `{"hooks": {`, `{"a":1,"a":2}`} {
		if out, _, err := SetHostHooks([]byte(src), claudeHooks, mineAgentHooks); err == nil {
			t.Errorf("%s: edited into %s", src, out)
		}
	}
}

func TestPosition(t *testing.T) {
	t.Parallel()
	src := []byte("{\n  \"hooks\": {\n    \"Stop\": [\n      {\"type\": \"command\"}\n    ]\n  }\n}")
	for _, tc := range []struct {
		path      []any
		line, col int
	}{
		{nil, 1, 1},
		{[]any{"hooks"}, 2, 12},
		{[]any{"hooks", "Stop", 0}, 4, 7},
		{[]any{"hooks", "Stop", 0, "type"}, 4, 16},
		{[]any{"hooks", "Stop", 5}, 3, 13}, // the deepest that exists
	} {
		line, col, ok := Position(src, tc.path...)
		if !ok || line != tc.line || col != tc.col {
			t.Errorf("Position(%v) = %d:%d %v, want %d:%d", tc.path, line, col, ok, tc.line, tc.col)
		}
	}
	if _, _, ok := Position([]byte("{")); ok {
		t.Error("Position of invalid JSON is ok")
	}
}

// Copilot's hooks files list the hooks right under the event, with "bash" and "timeoutSec": a
// new file says "version": 1; the user's hooks and keys keep their bytes, an entry without a
// "type" is a command hook, and uninstall gives back the same bytes.
func TestSetHostHooksInCopilotShape(t *testing.T) {
	t.Parallel()
	mine := func(cmd string) bool { return strings.HasPrefix(cmd, "agent-hooks hook copilot") }
	want := []HostHook{{Event: "preToolUse", Command: "agent-hooks hook copilot --event preToolUse --timeout 30", Timeout: 30}}
	out, changed, err := SetHostHooksIn(copilotShape, nil, want, mine)
	if err != nil || !changed {
		t.Fatal(err, changed)
	}
	if w := `{
  "version": 1,
  "hooks": {
    "preToolUse": [
      {
        "type": "command",
        "bash": "agent-hooks hook copilot --event preToolUse --timeout 30",
        "timeoutSec": 30
      }
    ]
  }
}
`; string(out) != w {
		t.Fatalf("got:\n%s\nwant:\n%s", out, w)
	}
	user := "{\"version\": 1, \"x\": [1],\n \"hooks\": {\"preToolUse\": [{\"bash\": \"./audit.sh\"}], \"agentStop\": [{\"bash\": \"agent-hooks hook copilot --event agentStop\"}]}}\n"
	out, changed, err = SetHostHooksIn(copilotShape, []byte(user), want, mine)
	if err != nil || !changed {
		t.Fatal(err, changed)
	}
	if w := "{\"version\": 1, \"x\": [1],\n \"hooks\": {\"preToolUse\": [{\"bash\": \"./audit.sh\"},{\"type\": \"command\", \"bash\": \"agent-hooks hook copilot --event preToolUse --timeout 30\", \"timeoutSec\": 30}]}}\n"; string(out) != w {
		t.Fatalf("got:\n%s\nwant:\n%s", out, w)
	}
	back, _, err := SetHostHooksIn(copilotShape, out, nil, mine)
	if err != nil || string(back) != "{\"version\": 1, \"x\": [1],\n \"hooks\": {\"preToolUse\": [{\"bash\": \"./audit.sh\"}]}}\n" {
		t.Fatalf("uninstall: %s %v", back, err)
	}
}

// copilotShape is a settings file of flat, typed entries (Copilot CLI's hooks file).
var copilotShape = HostShape{Flat: true, CommandKey: "bash", TimeoutKey: "timeoutSec", Empty: "{\n  \"version\": 1\n}\n"}
