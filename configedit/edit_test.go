package configedit

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	commit = Builtin{Event: "PostExecutionEnd", Aliases: []string{"on_task_complete", "on-task-complete"}, Type: "git-commit",
		Fields: []Field{{"type", "git-commit"}, {"message", "Complete issue #{{issueNumber}}: {{issueTitle}}"}}, Before: []string{"git-push"}}
	push = Builtin{Event: "PostExecutionEnd", Aliases: []string{"on_task_complete", "on-task-complete"}, Type: "git-push",
		Fields: []Field{{"type", "git-push"}, {"remote", "origin"}, {"branch", "current"}}, After: []string{"git-commit"}}
)

func set(t *testing.T, src string, b Builtin, enable bool) (string, bool) {
	t.Helper()
	out, changed, err := Set([]byte(src), b, enable)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) && len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("invalid JSON:\n%s", out)
	}
	return string(out), changed
}

func TestSetOnEmptyConfig(t *testing.T) {
	t.Parallel()
	got, changed := set(t, "", commit, true)
	want := `{
  "hooks": {
    "PostExecutionEnd": [
      {
        "type": "git-commit",
        "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"
      }
    ]
  }
}
`
	if !changed || got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	got, _ = set(t, got, push, true)
	want = `{
  "hooks": {
    "PostExecutionEnd": [
      {
        "type": "git-commit",
        "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"
      },
      {
        "type": "git-push",
        "remote": "origin",
        "branch": "current"
      }
    ]
  }
}
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// Turning both off again leaves an empty hooks object.
	got, _ = set(t, got, commit, false)
	got, _ = set(t, got, push, false)
	if want := "{\n  \"hooks\": {}\n}\n"; got != want {
		t.Fatalf("got:\n%q\nwant:\n%q", got, want)
	}
	if _, changed := set(t, "", commit, false); changed {
		t.Error("disabling on an empty config changed it")
	}
}

// A user's file with other tools' keys, odd numbers, escapes, tabs and its own key order.
const userConfig = `{
	"$schema": "https://example.com/schema.json",
	"providers": {"claude": {"model": "opus", "maxTokens": 1e4, "temperature": 0.50}, "order": ["b", "a"]},
	"logLevel": "debug",
	"hooks": {
		"PreExecutionEnd": [
			{"type": "command", "command": "make test", "blocking": true, "timeout": 60000}
		],
		"PostExecutionEnd": [
			{"command": "echo \u00e9t\u00e9 \"done\""},
			{"type": "git-push", "remote": "upstream"}
		]
	},
	"zeta": {"nested": {"deeper": [1, 2.0, null, false]}},
	"alpha": 1
}
`

func TestSetPreservesEverythingElse(t *testing.T) {
	t.Parallel()
	got, changed := set(t, userConfig, commit, true)
	if !changed {
		t.Fatal("not changed")
	}
	// The edit is one insertion: taking it out gives the file back byte for byte.
	ins := "{\"type\": \"git-commit\", \"message\": \"Complete issue #{{issueNumber}}: {{issueTitle}}\"},\n\t\t\t"
	if !strings.Contains(got, ins) || strings.Replace(got, ins, "", 1) != userConfig {
		t.Fatalf("not a clean insertion before git-push:\n%s", got)
	}
	// Idempotent.
	again, changed := set(t, got, commit, true)
	if changed || again != got {
		t.Errorf("second enable changed the file:\n%s", again)
	}
	// Removing it gives the original back.
	back, changed := set(t, got, commit, false)
	if !changed || back != userConfig {
		t.Errorf("disable did not restore the file:\n%s", back)
	}
	// Pushing is already configured: nothing to do; disabling removes exactly it.
	if _, changed := set(t, userConfig, push, true); changed {
		t.Error("enable push changed a file that has git-push")
	}
	noPush, _ := set(t, userConfig, push, false)
	if want := strings.Replace(userConfig, ",\n\t\t\t{\"type\": \"git-push\", \"remote\": \"upstream\"}", "", 1); noPush != want {
		t.Errorf("disable push:\n%s\nwant:\n%s", noPush, want)
	}
	// Keys stay in their order.
	last := -1
	for _, k := range []string{`"$schema"`, `"providers"`, `"logLevel"`, `"hooks"`, `"zeta"`, `"alpha"`} {
		at := strings.Index(got, k)
		if at <= last {
			t.Errorf("key %s moved", k)
		}
		last = at
	}
}

func TestSetPlacement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		b         Builtin
		want      string
	}{
		{"push after the last commit, compact file", `{"hooks":{"PostExecutionEnd":[{"type":"git-commit"},{"command":"x"}]}}`, push,
			`{"hooks":{"PostExecutionEnd":[{"type":"git-commit"},{"type": "git-push", "remote": "origin", "branch": "current"},{"command":"x"}]}}`},
		{"commit before push", `{"hooks":{"PostExecutionEnd":[{"command":"x"},{"type":"git-push"}]}}`, commit,
			`{"hooks":{"PostExecutionEnd":[{"command":"x"},{"type": "git-commit", "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"},{"type":"git-push"}]}}`},
		{"new event after the others", "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}", push,
			"{\n  \"hooks\": {\n    \"Stop\": [],\n    \"PostExecutionEnd\": [\n      {\n        \"type\": \"git-push\",\n        \"remote\": \"origin\",\n        \"branch\": \"current\"\n      }\n    ]\n  }\n}"},
		{"disabled hook is enabled", `{"hooks":{"PostExecutionEnd":[{"type":"git-commit","enabled":false}]}}`, commit,
			`{"hooks":{"PostExecutionEnd":[{"type":"git-commit","enabled":true}]}}`},
		{"alias counts", `{"hooks":{"on_task_complete":[{"type":"git-commit"}]}}`, commit,
			`{"hooks":{"on_task_complete":[{"type":"git-commit"}]}}`},
		{"alias array is used", `{"hooks":{"on-task-complete":[{"type":"git-commit"}]}}`, push,
			`{"hooks":{"on-task-complete":[{"type":"git-commit"},{"type": "git-push", "remote": "origin", "branch": "current"}]}}`},
		// Hooks run in the file's order of event keys: the commit under a later alias key must
		// still come before the push.
		{"push after a commit under a later alias", `{"hooks":{"PostExecutionEnd":[{"command":"x"}],"on_task_complete":[{"type":"git-commit"}]}}`, push,
			`{"hooks":{"PostExecutionEnd":[{"command":"x"}],"on_task_complete":[{"type":"git-commit"},{"type": "git-push", "remote": "origin", "branch": "current"}]}}`},
		{"commit before a push under an earlier alias", `{"hooks":{"on_task_complete":[{"type":"git-push"}],"PostExecutionEnd":[{"command":"x"}]}}`, commit,
			`{"hooks":{"on_task_complete":[{"type": "git-commit", "message": "Complete issue #{{issueNumber}}: {{issueTitle}}"},{"type":"git-push"}],"PostExecutionEnd":[{"command":"x"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := set(t, tc.src, tc.b, true)
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestSetRemovesEveryCopy(t *testing.T) {
	t.Parallel()
	src := `{"hooks": {"on_task_complete": [{"type": "git-commit"}], "PostExecutionEnd": [{"type": "git-commit"}, {"command": "a"}, {"type": "git-commit", "message": "m"}]}}`
	got, _ := set(t, src, commit, false)
	if want := `{"hooks": {"PostExecutionEnd": [{"command": "a"}]}}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestSetRejectsBadJSON(t *testing.T) {
	t.Parallel()
	_, _, err := Set([]byte("{\n  \"hooks\": {\n    \"PostExecutionEnd\": [\n  }\n}"), commit, true)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 4 || se.Col != 3 {
		t.Fatalf("err = %v, want a syntax error at 4:3", err)
	}
	if _, _, err := Set([]byte(`{"hooks": []}`), commit, true); err == nil || !strings.Contains(err.Error(), `"hooks" is not an object`) {
		t.Errorf("err = %v", err)
	}
	if _, _, err := Set([]byte(`[1]`), commit, true); err == nil {
		t.Error("a JSON array was accepted as a config")
	}
	// A duplicate key is ambiguous (the loader refuses it; other readers keep the last, this
	// editor would have edited the first): refused with its position.
	_, _, err = Set([]byte("{\"hooks\": {\"PostExecutionEnd\": [],\n  \"PostExecutionEnd\": []}}"), commit, true)
	if !errors.As(err, &se) || se.Line != 2 || se.Col != 3 || !strings.Contains(se.Msg, `duplicate key "PostExecutionEnd" (first at 1:12)`) {
		t.Errorf("err = %v, want a duplicate key at 2:3", err)
	}
}

func TestUpdateCreatesKeepsModeFollowsLinksAndSerializes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "home", ".autoagent", "config.json")
	edit := func(b Builtin, on bool) func([]byte) ([]byte, bool, error) {
		return func(src []byte) ([]byte, bool, error) { return Set(src, b, on) }
	}
	if changed, err := Update(path, edit(commit, true)); err != nil || !changed {
		t.Fatalf("create: %v %v", changed, err)
	}
	must(t, os.Chmod(path, 0o600))
	if changed, err := Update(path, edit(commit, true)); err != nil || changed {
		t.Fatalf("idempotent update: %v %v", changed, err)
	}
	// A symlinked config (dotfiles) is updated where it lives, and the link stays.
	link := filepath.Join(dir, "link.json")
	must(t, os.Symlink(path, link))
	if _, err := Update(link, edit(push, true)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced")
	}
	fi, err := os.Stat(path)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "git-push") || !strings.Contains(string(b), "git-commit") {
		t.Errorf("config = %s", b)
	}
	// Concurrent updates do not lose each other's changes.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := push
			if i%2 == 0 {
				b = commit
			}
			if _, err := Update(path, edit(b, i < 4)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("lock file left behind")
	}
	b, _ = os.ReadFile(path)
	if !json.Valid(b) {
		t.Fatalf("config corrupted:\n%s", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("left files behind: %v", entries)
	}
	// A broken file is reported with its position and left alone.
	must(t, os.WriteFile(path, []byte("{\n  \"hooks\": x\n}"), 0o600))
	if _, err := Update(path, edit(commit, true)); err == nil || !strings.Contains(err.Error(), path+":2:12:") {
		t.Errorf("err = %v, want %s:2:12", err, path)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSetRoundTripsByteForByte: on files written in any style (CRLF line ends, tabs, one line,
// non-ASCII keys and values, escapes, numbers as written, other tools' nested keys), turning a
// built-in on and off again gives back the exact bytes, and turning it on touches nothing
// outside the hooks it edits.
func TestSetRoundTripsByteForByte(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src      string
		restores bool // false: enabling adds "hooks" or an event, which disabling leaves (empty)
	}{
		{"{\r\n  \"hooks\": {\r\n    \"Stop\": [{\"command\": \"echo h\\u00e9\"}]\r\n  },\r\n  \"n\": 1.50e+3\r\n}\r\n", false},
		{"{\"hooks\":{\"PostExecutionEnd\":[{\"command\":\"a\"}]},\"x\":{\"y\":[1,2,{\"z\":null}]}}", true},
		{"{\n\t\"café\": \"thé \\\"noir\\\"\",\n\t\"hooks\": {\n\t\t\"on_task_complete\": [\n\t\t\t{\"type\": \"git-push\"}\n\t\t]\n\t}\n}\n", true},
		{"  {  }  \n", false},
		{"{\"hooks\": {\"PostExecutionEnd\": []}, \"emoji\": \"\\ud83d\\ude00 😀\"}", false},
	} {
		src := tc.src
		on, changed := set(t, src, commit, true)
		if !changed {
			t.Fatalf("%q: enable did not change it", src)
		}
		if off, _ := set(t, on, commit, false); tc.restores && off != src {
			t.Errorf("enable then disable:\n%q\nwant\n%q", off, src)
		}
		// Every member of the original outside "hooks" is still there, byte for byte.
		orig, err := parse([]byte(src))
		must(t, err)
		edited, err := parse([]byte(on))
		must(t, err)
		for _, m := range orig.Members {
			if m.Key == "hooks" {
				continue
			}
			v, _ := edited.Get(m.Key)
			if v == nil || on[v.Start:v.End] != src[m.Value.Start:m.Value.End] {
				t.Errorf("%q: member %q changed in\n%s", src, m.Key, on)
			}
		}
	}
}
