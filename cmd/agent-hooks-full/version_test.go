package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// TestVersionStampedByLinker builds agent-hooks the way the release does (-ldflags -X) and
// checks that version, --version and version --json report the stamp.
func TestVersionStampedByLinker(t *testing.T) {
	const rev, when = "0123456789abcdef0123456789abcdef01234567", "2026-05-01T10:00:00Z"
	bin := buildAgentHooks(t, ".", "-ldflags", "-X main.version=1.2.3 -X main.commit="+rev+" -X main.date="+when)
	out := run(t, bin, "version")
	want := "agent-hooks v1.2.3\ncommit:   " + rev + "\ndate:     " + when + "\ngo:       "
	if !strings.HasPrefix(out, want) {
		t.Errorf("version printed\n%s\nwant it to begin\n%s", out, want)
	}
	if flag := run(t, bin, "--version"); flag != out {
		t.Errorf("--version printed\n%s\nversion printed\n%s", flag, out)
	}
	var v cli.VersionInfo
	if err := json.Unmarshal([]byte(run(t, bin, "version", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Version != "v1.2.3" || v.Commit != rev || v.Date != when || v.Source != "ldflags" || v.Modified {
		t.Errorf("version --json: %+v", v)
	}
}

// TestVersionFromVCSStamp builds agent-hooks with go build in a git checkout (a copy of this
// module committed to a new repository) and checks that version reports the commit, its date
// and whether the tree had uncommitted changes, as the Go toolchain recorded them.
func TestVersionFromVCSStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: copies the module into a new repository and builds agent-hooks there; runs without -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	root := moduleRoot(t)
	repo := t.TempDir()
	files, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+filepath.Join(repo, ".git", "no-global-config"), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2026-05-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-05-01T10:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	head := git("rev-parse", "HEAD")

	bin := buildAgentHooks(t, filepath.Join(repo, "cmd", "agent-hooks"), "-buildvcs=true")
	out := run(t, bin, "version")
	if want := "commit:   " + head + "\ndate:     2026-05-01T10:00:00Z\n"; !strings.Contains(out, want) {
		t.Errorf("version printed\n%s\nwant it to hold\n%s", out, want)
	}
	var v cli.VersionInfo
	if err := json.Unmarshal([]byte(run(t, bin, "version", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Source != "vcs" || v.Commit != head || v.Modified {
		t.Errorf("version --json: %+v", v)
	}

	// An uncommitted change is recorded as vcs.modified and shown.
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin = buildAgentHooks(t, filepath.Join(repo, "cmd", "agent-hooks"), "-buildvcs=true")
	if out := run(t, bin, "version"); !strings.Contains(out, "commit:   "+head+" (modified)\n") {
		t.Errorf("version of a modified tree printed\n%s", out)
	}
}

// buildAgentHooks runs go build in dir (the cmd/agent-hooks package) with the extra flags.
func buildAgentHooks(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("slow: builds agent-hooks with go build; runs without -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	bin := filepath.Join(t.TempDir(), "agent-hooks")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command(goBin, append(append([]string{"build", "-trimpath", "-o", bin}, flags...), ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return string(out)
}

// moduleRoot is the directory of go.mod above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return dir
}
