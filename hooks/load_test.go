package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeConfig writes a project config and returns the LoadEnv of its workspace.
func writeConfig(t testing.TB, project, user string) LoadEnv {
	t.Helper()
	ws, home := t.TempDir(), t.TempDir()
	if project != "" {
		must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(project), 0o644))
	}
	if user != "" {
		must(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(user), 0o644))
	}
	return LoadEnv{Workspace: ws, AutoagentHome: home, Getenv: func(string) string { return "" }}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type stubType struct{ fields []string }

func (s stubType) Configure(h *Hook, opts json.RawMessage) (Task, error) {
	var m map[string]any
	if err := json.Unmarshal(opts, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if !slices.Contains(s.fields, k) {
			return nil, UnknownFieldError(k, s.fields)
		}
	}
	return TaskFunc(func(context.Context, *Invocation) Outcome { return Outcome{Status: StatusOK} }), nil
}

func TestLoadErrorsNamePosition(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	reg.Register("git-commit", TypeFunc(func(h *Hook, o json.RawMessage) (Task, error) {
		return stubType{fields: []string{"message", "noVerify"}}.Configure(h, o)
	}))
	tests := []struct {
		name, config, want string
	}{
		{"syntax", "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"command\": \"x\",}\n", `config.json:4:23: invalid JSON`},
		{"unknown event", "{\n  \"hooks\": {\n    \"PreExecutonEnd\": []\n  }\n}", `config.json:3:5: hooks: unknown event "PreExecutonEnd"; did you mean "PreExecutionEnd"?`},
		{"unknown type", "{\"hooks\": {\"Stop\": [\n  {\"type\": \"git-comit\"}\n]}}", `config.json:2:3: hooks.Stop: unknown hook type "git-comit"; did you mean "git-commit"?`},
		{"unknown field", "{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"blockign\": true}]}}", `config.json:1:21: hooks.Stop: unknown field "blockign"; did you mean "blocking"?`},
		{"type option", "{\"hooks\": {\"Stop\": [{\"type\": \"git-commit\", \"mesage\": \"m\"}]}}", `unknown field "mesage"; did you mean "message"?`},
		{"wrong type", "{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"timeout\": \"5 parsecs\"}]}}", `config.json:1:21: hooks.Stop: timeout`},
		{"no command", "{\"hooks\": {\"Stop\": [{\"name\": \"x\"}]}}", `command hook needs a "command"`},
		{"hooks not object", "{\"hooks\": []}", `config.json:1:11: "hooks" must be an object`},
		{"bad matcher", "{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"matcher\": {\"field\": \"a\", \"regex\": \"(\"}}]}}", `matcher: bad regex`},
		{"bad tools", "{\"hooks\": {\"PreToolUse\": [{\"command\": \"x\", \"tools\": \"Bash(\"}]}}", `config.json:1:27: hooks.PreToolUse: tools: bad regex "Bash("`},
		{"tools not a string", "{\"hooks\": {\"PreToolUse\": [{\"command\": \"x\", \"tools\": [\"Bash\"]}]}}", `hooks.PreToolUse: tools: want a string`},
		{"truncated", "{\"hooks\": {", `config.json:1:11: invalid JSON: unexpected end of JSON input`},
		{"custom event name", "{\"customEvents\": [\"9bad\"]}", `customEvents: "9bad" is not a valid event name`},
		// Every other JSON reader keeps only the last of duplicate keys; the loader kept both.
		{"duplicate event", "{\"hooks\": {\n  \"Stop\": [{\"command\": \"a\"}],\n  \"Stop\": [{\"command\": \"b\"}]\n}}", `config.json:3:3: hooks: duplicate key "Stop" (first at 2:3)`},
		{"duplicate hooks", "{\"hooks\": {\"Stop\": [{\"command\": \"a\"}]},\n \"hooks\": {}}", `config.json:2:2: duplicate key "hooks" (first at 1:2)`},
		{"duplicate field", "{\"hooks\": {\"Stop\": [{\"command\": \"x\"}, {\"command\": \"a\", \"command\": \"b\"}]}}", `config.json:1:56: hooks.Stop[1]: duplicate key "command" (first at 1:40)`},
		{"duplicate nested", "{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"env\": {\"A\": \"1\", \"A\": \"2\"}}]}}", `config.json:1:56: hooks.Stop[0].env: duplicate key "A" (first at 1:46)`},
		{"duplicate other tool's key", "{\"providers\": {\"a\": 1, \"a\": 2}}", `config.json:1:24: providers: duplicate key "a" (first at 1:16)`},
		{"duplicate escaped key", "{\"hooks\": {\"Stop\": [], \"St\\u006fp\": []}}", `config.json:1:24: hooks: duplicate key "Stop" (first at 1:12)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(reg, writeConfig(t, tc.config, ""))
			var cerr *ConfigError
			if !errors.As(err, &cerr) {
				t.Fatalf("want a ConfigError, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tc.want)
			}
		})
	}
}

// TestLoadTypeErrorsAtTheValue: a field of the wrong type is reported at the value itself, also
// inside env and matcher, and the top-level keys at their values.
func TestLoadTypeErrorsAtTheValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ config, want string }{
		{"{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"blocking\": \"yes\"}]}}", `config.json:1:50: hooks.Stop: blocking: want true or false, got JSON string`},
		{"{\"hooks\": {\"Stop\": [\n  {\"command\": \"x\",\n   \"env\": {\"A\": 1}}]}}", `config.json:3:17: hooks.Stop: env: want a string, got JSON number`},
		{"{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"matcher\": {\"field\": []}}]}}", `config.json:1:59: hooks.Stop: matcher.field: want a string, got JSON array`},
		{"{\"hooks\": {\"Stop\": [\"echo\"]}}", `config.json:1:21: hooks.Stop: each hook must be an object`},
		{"{\"hooks\": {\"Stop\": {}}}", `config.json:1:20: hooks.Stop: want an array of hooks`},
		{"{\n  \"customEvents\": \"Deploy\"}", `config.json:2:19: customEvents: must be an array of event names`},
		{"{\"stopBlockLimit\": -1}", `config.json:1:20: stopBlockLimit: want a whole number >= 0`},
		{"{\"disableUserHooks\": 1}", `config.json:1:22: disableUserHooks: want true or false`},
		{"[]", `config.json:1:1: the config must be a JSON object`},
		{"{\"hooks\": {\"Stop\": [{\"command\": \"x\", \"name\": \"é\", \"parallel\": 1}]}}", `config.json:1:63: hooks.Stop: parallel: want true or false, got JSON number`},
	}
	for _, tc := range tests {
		_, err := Load(NewRegistry(), writeConfig(t, tc.config, ""))
		var cerr *ConfigError
		if !errors.As(err, &cerr) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.config, err, tc.want)
		}
	}
}

func TestLoadOrderAliasesCustomEventsAndUserHooks(t *testing.T) {
	t.Parallel()
	project := `{
  "providers": ["claude"],
  "customEvents": ["DeployDone"],
  "hooks": {
    "PreExecutionEnd": [{"command": "echo p1", "name": "p1", "timeout": 1500}],
    "on_task_complete": [{"command": "echo p2"}],
    "DeployDone": [{"command": "echo custom"}]
  }
}`
	user := `{"hooks": {"PreExecutionEnd": [{"command": "echo u1", "name": "u1"}]}}`
	env := writeConfig(t, project, user)
	cfg, err := Load(NewRegistry(), env)
	must(t, err)
	var names []string
	for _, h := range cfg.Hooks[PreExecutionEnd] {
		names = append(names, h.Name+"/"+h.Source.Scope)
	}
	if got, want := strings.Join(names, ","), "p1/project,u1/user"; got != want {
		t.Errorf("PreExecutionEnd hooks = %s, want %s", got, want)
	}
	if h := cfg.Hooks[PreExecutionEnd][0]; h.Timeout.Milliseconds() != 1500 || h.Source.Line != 5 {
		t.Errorf("timeout %v line %d", h.Timeout, h.Source.Line)
	}
	if len(cfg.Hooks[PostExecutionEnd]) != 1 || len(cfg.Hooks["DeployDone"]) != 1 {
		t.Errorf("alias or custom event not mapped: %v", cfg.Hooks)
	}

	// disableUserHooks drops the user config entirely.
	env = writeConfig(t, `{"disableUserHooks": true, "hooks": {"Stop": [{"command": "true"}]}}`, user)
	cfg, err = Load(NewRegistry(), env)
	must(t, err)
	if len(cfg.Hooks[PreExecutionEnd]) != 0 || len(cfg.Files) != 1 {
		t.Errorf("user hooks loaded despite disableUserHooks: %v", cfg.Files)
	}
}

// TestLoadReportsEveryDuplicateKey: each duplicate is a diagnostic of its own.
func TestLoadReportsEveryDuplicateKey(t *testing.T) {
	t.Parallel()
	config := "{\"hooks\": {\"Stop\": [], \"Stop\": [], \"Stop\": []}, \"x\": 1, \"x\": 2}"
	_, err := Load(NewRegistry(), writeConfig(t, config, ""))
	var cerr *ConfigError
	if !errors.As(err, &cerr) || len(cerr.Diagnostics) != 3 {
		t.Fatalf("want a ConfigError with 3 diagnostics, got %v", err)
	}
}

// TestLoadRefusesConfigsThatCannotBeRead: a config that is a link to nothing is an error naming
// it (it used to read as "no config", which disabled every hook), and one that would hang the
// read (a FIFO) or never end is refused with an error naming the file.
func TestLoadRefusesConfigsThatCannotBeRead(t *testing.T) {
	t.Parallel()
	env := writeConfig(t, "", `{"hooks": {"Stop": [{"command": "true"}]}}`)
	project := filepath.Join(env.Workspace, ".autoagent", "config.json")
	must(t, os.MkdirAll(filepath.Dir(project), 0o755))
	if err := os.Symlink(filepath.Join(env.Workspace, "shared", "config.json"), project); err != nil {
		t.Skipf("symlink: %v", err)
	}
	_, err := Load(NewRegistry(), env)
	if err == nil || !strings.Contains(err.Error(), project+": it is a symbolic link to") {
		t.Errorf("dangling project config: %v, want an error naming it", err)
	}

	must(t, os.Remove(project))
	must(t, os.WriteFile(project, nil, 0o644))
	must(t, os.Truncate(project, 16<<20+1))
	if _, err := Load(NewRegistry(), env); err == nil || !strings.Contains(err.Error(), project+": larger than 16 MiB") {
		t.Errorf("oversized project config: %v", err)
	}
}

func TestLoadMissingAndEmptyConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"", "  \n", "{}"} {
		cfg, err := Load(NewRegistry(), writeConfig(t, c, ""))
		must(t, err)
		if len(cfg.Hooks) != 0 {
			t.Errorf("%q: hooks %v", c, cfg.Hooks)
		}
	}
}

// FuzzLoad: the loader never panics, and either loads or returns a ConfigError with a position
// inside the file.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"hooks": {"Stop": [{"command": "x"}]}}`,
		`{"hooks": {"PreExecutionEnd": [{"command": "x", "blocking": true, "timeout": 10}]}}`,
		`{"hooks": {"Stop": [{"type": "webhook"}]}}`,
		`{"customEvents": ["A"], "hooks": {"A": [{"command": "x", "matcher": {"field": "a", "regex": "b"}}]}}`,
		`{"hooks": {"Stop": [1, "x", null]}}`,
		`{"hooks": {"Stop": [{"command": "x", "env": {"A": "1"}}]}} {}`,
		`[]`, `{"a":`, "\xef\xbb\xbf{}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, config string) {
		env := writeConfig(t, config, "")
		cfg, err := Load(NewRegistry(), env)
		if err == nil {
			if cfg == nil {
				t.Fatal("nil config without error")
			}
			return
		}
		var cerr *ConfigError
		if !errors.As(err, &cerr) || len(cerr.Diagnostics) == 0 {
			t.Fatalf("want a ConfigError, got %T %v", err, err)
		}
		for _, d := range cerr.Diagnostics {
			if d.Line < 1 || d.Col < 1 || d.File == "" {
				t.Fatalf("diagnostic without position: %+v", d)
			}
		}
	})
}

func TestLoadExtraConfigBetweenProjectAndUser(t *testing.T) {
	t.Parallel()
	env := writeConfig(t, `{"hooks": {"Stop": [{"name": "p", "command": "true"}]}}`, `{"hooks": {"Stop": [{"name": "u", "command": "true"}]}}`)
	env.ExtraConfig = filepath.Join(t.TempDir(), "extra.json")
	must(t, os.WriteFile(env.ExtraConfig, []byte(`{"hooks": {"Stop": [{"name": "x", "command": "true"}]}}`), 0o644))
	cfg, err := Load(NewRegistry(), env)
	must(t, err)
	var got []string
	for _, h := range cfg.Hooks[Stop] {
		got = append(got, h.Name+"/"+h.Source.Scope)
	}
	if strings.Join(got, " ") != "p/project x/extra u/user" {
		t.Errorf("order %v", got)
	}
	env.ExtraConfig = filepath.Join(t.TempDir(), "missing.json")
	if _, err := Load(NewRegistry(), env); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing extra config: %v", err)
	}
}
