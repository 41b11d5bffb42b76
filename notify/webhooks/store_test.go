package webhooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

func TestUpdateStoreModeAndKeys(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	path := StorePath(home)
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version": 2, "webhooks": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := UpdateStore(path, func(s *Store) error {
		e := Entry{Format: FormatSlack, URL: "https://hooks.slack.test/services/SECRET", Events: []string{"on_session_complete", "Error", "SessionEnd"}}
		if err := e.Validate(); err != nil {
			return err
		}
		s.Webhooks["slack"] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("mode: got %#o, want 0600", got)
	}
	data, _ := os.ReadFile(path)
	want := `{
  "version": 2,
  "webhooks": {
    "slack": {
      "format": "slack",
      "url": "https://hooks.slack.test/services/SECRET",
      "events": [
        "SessionEnd",
        "Error"
      ]
    }
  }
}
`
	if string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	s, err := ReadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v %+v %#v", s.Webhooks["slack"].URL, s.Webhooks["slack"], s.Webhooks["slack"]); strings.Contains(got, "SECRET") {
		t.Errorf("formatting an entry shows its URL: %s", got)
	}
	// A failing update writes nothing.
	if err := UpdateStore(path, func(s *Store) error { delete(s.Webhooks, "slack"); return fmt.Errorf("no") }); err == nil {
		t.Fatal("want the update's error")
	}
	if again, _ := os.ReadFile(path); string(again) != want {
		t.Errorf("a failed update changed the file")
	}
}

// TestUpdateStoreConcurrent: updates from many goroutines (each opening the lock, as separate
// processes would) are all kept.
func TestUpdateStoreConcurrent(t *testing.T) {
	t.Parallel()
	path := StorePath(t.TempDir())
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := UpdateStore(path, func(s *Store) error {
				s.Webhooks[fmt.Sprintf("w%02d", i)] = Entry{Format: FormatJSON, URLEnv: "X", Events: []string{hooks.Error}}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := ReadStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Webhooks); n != 20 {
		t.Errorf("entries: got %d, want 20 (lost updates)", n)
	}
}

func TestReadStoreErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, tt := range map[string]struct{ content, want string }{
		"syntax":  {"{\n  \"webhooks\": {,}\n}", "2:16: invalid character ','"},
		"unknown": {`{"webhooks": {"a": {"format": "json", "uri": "x"}}}`, `unknown field "uri"`},
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := ReadStore(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%s: got %v, want %s: …%s…", name, err, p, tt.want)
		}
	}
}

func TestFormatLoad(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := StorePath(home)
	content := `{"webhooks": {
	  "team": {"format": "discord", "urlEnv": "DISCORD_URL", "events": ["finished", "on_error", "PreExecutionEnd"]},
	  "alerts": {"format": "slack", "url": "https://hooks.slack.test/services/SECRET", "events": ["Error"]}
	}}`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := NewFormat().Load(hooks.LoadEnv{AutoagentHome: home})
	if err != nil {
		t.Fatal(err)
	}
	got, diags := loaded.Hooks, loaded.Diagnostics
	var lines []string
	for _, h := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s/%s/%s", h.Event, h.Name, h.Type, h.Options, h.Source.Format, h.Source.Scope, filepath.Base(h.Source.File)))
		if !h.Enabled {
			t.Errorf("%s: not enabled", h.Name)
		}
	}
	want := []string{
		`Error webhook alerts webhook {"webhook":"alerts"} webhooks/user/webhooks.json`,
		`SessionEnd webhook team webhook {"webhook":"team"} webhooks/user/webhooks.json`,
		`Error webhook team webhook {"webhook":"team"} webhooks/user/webhooks.json`,
		`PreExecutionEnd webhook team webhook {"webhook":"team"} webhooks/user/webhooks.json`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("hooks:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if len(diags) != 1 || diags[0].Severity != hooks.SeverityWarning || !strings.Contains(diags[0].Message, "mode 0644 lets other users read") {
		t.Errorf("diagnostics: got %v, want one warning about mode 0644", diags)
	}

}

func TestFormatLoadErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	content := `{"webhooks": {"a": {"format": "slack", "urlEnv": "U", "events": ["SesionEnd"]}, "b": {"format": "json", "events": ["Error"]}}}`
	if err := os.WriteFile(StorePath(home), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := NewFormat().Load(hooks.LoadEnv{AutoagentHome: home})
	if err != nil {
		t.Fatal(err)
	}
	got, diags := loaded.Hooks, loaded.Diagnostics
	if len(got) != 0 {
		t.Errorf("got %d hooks from invalid entries", len(got))
	}
	want := []string{
		`webhook "a": events: unknown event "SesionEnd"; did you mean "SessionEnd"?`,
		`webhook "b": set url or urlEnv`,
	}
	if len(diags) != len(want) {
		t.Fatalf("diagnostics: got %v, want %d", diags, len(want))
	}
	for i, d := range diags {
		if d.Severity != hooks.SeverityError || d.Message != want[i] {
			t.Errorf("diagnostic %d: got %s %q, want error %q", i, d.Severity, d.Message, want[i])
		}
	}
	// No file, no hooks.
	if l, err := NewFormat().Load(hooks.LoadEnv{AutoagentHome: t.TempDir()}); len(l.Hooks)+len(l.Diagnostics) != 0 || l.Extension != nil || err != nil {
		t.Errorf("missing file: %+v %v", l, err)
	}
}
