package gitops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestMain lets the test binary be a pushing process of its own (see
// TestParallelProcessesPushSessions).
func TestMain(m *testing.M) {
	if dir := os.Getenv("GITOPS_TEST_PUSH_SESSION_FROM"); dir != "" {
		os.Exit(pushSessionProcess(dir, os.Getenv("GITOPS_TEST_PUSH_SESSION_ID")))
	}
	os.Exit(m.Run())
}

func pushSessionProcess(dir, id string) int {
	sr, err := OpenSessionRemote(dir, Env{Getenv: os.Getenv}, "origin", Limits{})
	if err == nil {
		trail := []byte(`{"seq":1,"event":"Stop","name":"` + id + `"}` + "\n")
		_, err = sr.PushSession(context.Background(), SessionPush{ID: id, Record: []byte(`{"id":"` + id + `"}`),
			Trail: TrailSnapshot{R: bytes.NewReader(trail), Size: int64(len(trail))}, Retries: 3})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestParallelProcessesPushSessions: sessions pushed at once by many processes (runners ending
// their sessions together) to one remote (git daemon) are all there afterwards, one ref each. The count is
// $AGENT_HOOKS_PARALLEL_PUSHES (default 1000; bench/sessions_remote.sh times it). Under -short
// it is 48, three per process slot: the same races, without a thousand processes.
func TestParallelProcessesPushSessions(t *testing.T) {
	t.Parallel()
	n := 1000
	if testing.Short() {
		n = 48
	}
	if v := os.Getenv("AGENT_HOOKS_PARALLEL_PUSHES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	bare, url := gitDaemon(t, e)
	e.git(t, dir, "remote", "add", "origin", url)
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const procs = 16
	ids := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for range procs {
		wg.Go(func() {
			for id := range ids {
				cmd := exec.Command(bin)
				cmd.Env = append(e.environ(), "GITOPS_TEST_PUSH_SESSION_FROM="+dir, "GITOPS_TEST_PUSH_SESSION_ID="+id)
				if out, err := cmd.CombinedOutput(); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %v: %s", id, err, out))
					mu.Unlock()
				}
			}
		})
	}
	want := map[string]bool{}
	for i := range n {
		id := fmt.Sprintf("session-%d-p%05d", 1700000000000+i, i)
		want[SessionRefPrefix+id] = true
		ids <- id
	}
	close(ids)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d pushes failed; the first: %s", len(failures), n, failures[0])
	}
	refs := strings.Fields(e.git(t, bare, "for-each-ref", "--format=%(refname)", SessionRefPrefix))
	got := map[string]bool{}
	for _, r := range refs {
		got[r] = true
	}
	for r := range want {
		if !got[r] {
			t.Errorf("lost: %s", r)
		}
	}
	if len(refs) != n {
		t.Errorf("%d session refs on the remote, want %d", len(refs), n)
	}
	e.git(t, bare, "fsck", "--strict", "--no-dangling")
}

// gitDaemon serves a new bare repository with git daemon on 127.0.0.1 (pushes enabled).
func gitDaemon(t *testing.T, e *testEnv) (bare, url string) {
	t.Helper()
	base := t.TempDir()
	bare = e.newBare(t, filepath.Join(base, "project.git"))
	port := freePort(t)
	startGitDaemon(t, e, base, port)
	return bare, fmt.Sprintf("git://127.0.0.1:%d/project.git", port)
}
