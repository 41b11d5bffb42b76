package github

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/autoagent/agent-hooks/github/githubtest"
)

// TestGitHubScripts runs testdata/script/github_*.txt: the real agent-hooks binary (built here)
// against a fake GitHub started by the script's github-fake command. The scripts begin with
// [!exec:github-fake-server] skip, so the CLI's own script runner, which has no github-fake,
// passes over them; this runner puts a github-fake-server marker on PATH.
func TestGitHubScripts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripts use sh")
	}
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "script", "github_*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no github scripts: %v", err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "agent-hooks"), "../cmd/agent-hooks")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build agent-hooks: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(bin, "github-fake-server"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			e.Setenv("HOME", home)
			e.Setenv("AUTOAGENT_HOME", filepath.Join(home, ".autoagent"))
			e.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			e.Setenv("NO_COLOR", "1")
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			return os.MkdirAll(home, 0o755)
		},
		Cmds: githubtest.ScriptCmds(),
	})
}
