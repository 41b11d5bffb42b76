package gitops

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchRepo makes a committed, packed repository of n small files (50 a directory) with fresh
// index stat data, and an ignored node_modules of n/10 files.
func benchRepo(b *testing.B, e *testEnv, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "repo")
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = e.environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	run("config", "user.name", "Bench")
	run("config", "user.email", "bench@example.com")
	run("config", "gc.auto", "0")
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d/s%d/f%05d.txt", i/500, i/50%10, i))
		if i%50 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "file %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	nm := filepath.Join(dir, "node_modules", "pkg")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n / 10 {
		if err := os.WriteFile(filepath.Join(nm, fmt.Sprintf("m%05d.js", i)), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	run("add", "-A")
	run("commit", "-q", "-m", "base")
	run("gc", "-q")
	return dir
}

// benchChange modifies 100 tracked files and adds 20 new ones (round makes them unique).
func benchChange(b *testing.B, dir string, n, round int) {
	b.Helper()
	for i := range 100 {
		k := i * (n / 100)
		p := filepath.Join(dir, fmt.Sprintf("d%03d/s%d/f%05d.txt", k/500, k/50%10, k))
		if err := os.WriteFile(p, fmt.Appendf(nil, "file %d round %d\n", k, round), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	add := filepath.Join(dir, "added", fmt.Sprint(round))
	if err := os.MkdirAll(add, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(add, fmt.Sprintf("n%d.txt", i)), []byte("new\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommit measures staging and committing 100 modified and 20 new files in a work tree of
// n files with gitops, and the same with the git CLI (`git add -A && git commit`) for comparison.
// gitops reports the bytes it allocates a commit (B/op): what a commit allocates on top of the
// index it holds drives its peak memory (bench/gitcommit.sh measures that against git's).
func BenchmarkCommit(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		e := newTestEnvB(b)
		b.Run(fmt.Sprintf("gitops/files=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			benchCommits(b, e, n, func(dir string) error {
				r, err := Open(dir, e.gitops())
				if err != nil {
					return err
				}
				if res, err := r.Commit(context.Background(), CommitOptions{Message: "bench"}); err != nil || !res.Changes {
					return fmt.Errorf("commit: %+v %v", res, err)
				}
				return nil
			})
		})
		b.Run(fmt.Sprintf("git-cli/files=%d", n), func(b *testing.B) {
			benchCommits(b, e, n, func(dir string) error {
				cmd := exec.Command("sh", "-c", "git add -A && git commit -q -m bench")
				cmd.Dir = dir
				cmd.Env = e.environ()
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("%v\n%s", err, out)
				}
				return nil
			})
		})
	}
}

// benchCommits times commit after each round of changes in a repository of n files.
func benchCommits(b *testing.B, e *testEnv, n int, commit func(dir string) error) {
	dir := benchRepo(b, e, n)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		benchChange(b, dir, n, i)
		b.StartTimer()
		if err := commit(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func newTestEnvB(b *testing.B) *testEnv {
	home := b.TempDir()
	return &testEnv{home: home, vars: map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
		"PATH": os.Getenv("PATH"), "LANG": "C",
	}}
}
