// Package gittest runs the real git CLI for the conformance tests of gitops' internal packages:
// each Env has its own HOME and reads no system or user git configuration unless a test writes
// one, so what git does in a test is what git does by default.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env is an isolated environment for git.
type Env struct {
	Home string
	Vars map[string]string
}

// New makes an Env with a fresh HOME.
func New(t testing.TB) *Env {
	t.Helper()
	home := t.TempDir()
	return &Env{Home: home, Vars: map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
		"PATH": os.Getenv("PATH"),
		"LANG": "C",
	}}
}

// Getenv reads the Env's variables.
func (e *Env) Getenv(k string) string { return e.Vars[k] }

// Environ is the Env as a process environment.
func (e *Env) Environ() []string {
	out := make([]string, 0, len(e.Vars))
	for k, v := range e.Vars {
		out = append(out, k+"="+v)
	}
	return out
}

// Git runs git in dir and returns its stdout, trimmed; the test fails if git does.
func (e *Env) Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, errOut, err := e.run(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return strings.TrimSpace(out)
}

// GitErr runs git in dir and returns its stdout and stderr, trimmed, and whether it failed.
func (e *Env) GitErr(dir string, args ...string) (string, error) {
	out, errOut, err := e.run(dir, args...)
	return strings.TrimSpace(out + errOut), err
}

func (e *Env) run(dir string, args ...string) (string, string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = e.Environ()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// Repo makes a repository (branch main) with one commit of files.
func (e *Env) Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	e.Git(t, "", "init", "-q", "-b", "main", dir)
	WriteFiles(t, dir, files)
	e.Git(t, dir, "add", "-A")
	e.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

// WriteFiles writes files (slash-separated paths relative to dir), making their directories.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Fsck fails the test unless `git fsck --strict` finds the repository sound.
func (e *Env) Fsck(t testing.TB, dir string) {
	t.Helper()
	if out, err := e.GitErr(dir, "fsck", "--strict", "--no-progress"); err != nil {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}
