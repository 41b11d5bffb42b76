package all

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// TestEveryAgentIsWhole: an agent in the list has every piece the commands derive from it, so
// that adding one is its folder and one line here, and this test says what is missing.
func TestEveryAgentIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, ag := range Agents() {
		name := ag.Name()
		if name == "" || strings.ToLower(name) != name || strings.ContainsAny(name, " /") {
			t.Errorf("%q: an agent's name is one lowercase word (the command line's)", name)
		}
		if seen[name] {
			t.Errorf("%s: listed twice", name)
		}
		seen[name] = true
		s := ag.Settings()
		switch {
		case s == nil:
			t.Errorf("%s: no Settings", name)
			continue
		case s.Name != name:
			t.Errorf("%s: Settings().Name is %q", name, s.Name)
		case s.Title == "" || ag.Title() != s.Title:
			t.Errorf("%s: Title %q, Settings().Title %q", name, ag.Title(), s.Title)
		case len(s.Events) == 0 || len(s.Known) == 0 || len(s.HookTypes) == 0 && !s.Scripts && s.Plugin == nil:
			t.Errorf("%s: Settings() names no Events, Known events or HookTypes", name)
		case s.Files == nil:
			t.Errorf("%s: Settings().Files is nil", name)
		case s.Help.Install == "" || s.Help.Hook == "" || s.Help.Example == "":
			t.Errorf("%s: Settings().Help is incomplete: %+v", name, s.Help)
		}
		for _, ev := range s.Events {
			if !slices.Contains(s.Known, ev) {
				t.Errorf("%s: install registers %s, which is not among its Known events", name, ev)
			}
		}
		if s.Files != nil {
			files := s.Files(hostsettings.Env{Workspace: "/ws", Home: "/home"})
			var scopes []hostsettings.Scope
			for _, f := range files {
				scopes = append(scopes, f.Scope)
			}
			if !slices.Contains(scopes, hostsettings.User) || !slices.Contains(scopes, hostsettings.Project) {
				t.Errorf("%s: Settings().Files has no user or no project file: %v", name, files)
			}
		}
		if f := ag.Format(); f == nil || f.Name() != name {
			t.Errorf("%s: Format() is %v, not named after the agent", name, f)
		}
		if ag.Tools() == nil {
			t.Errorf("%s: Tools() is nil (describe its tools for the normalized call)", name)
		}
		inputs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", name, "*.json"))
		if len(inputs) == 0 {
			t.Errorf("%s: no captured inputs in testdata/agents/%s/", name, name)
		}
		if _, err := os.Stat(filepath.Join("..", name)); err != nil {
			t.Errorf("%s: no folder agents/%s: %v", name, name, err)
		}
	}
}

func TestLookup(t *testing.T) {
	if _, err := Lookup("claud"); err == nil || !strings.Contains(err.Error(), `did you mean "claude"?`) {
		t.Errorf("Lookup(claud) = %v", err)
	}
	for _, n := range Names() {
		if a, err := Lookup(n); err != nil || a.Name() != n {
			t.Errorf("Lookup(%s) = %v, %v", n, a, err)
		}
	}
}
