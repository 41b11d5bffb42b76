package gitops

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// packsOf lists the files of repo's objects/pack (git's common directory: gitDir).
func packsOf(t *testing.T, objects string) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(objects, "pack"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
		if fi, err := de.Info(); err != nil || fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("%s: mode %v (%v), want read-only as git writes packs", de.Name(), fi.Mode(), err)
		}
	}
	return names
}

// verifyPack is what `git verify-pack -v` lists of a pack: object id → type.
func verifyPack(t *testing.T, e *testEnv, repo, idx string) map[string]string {
	t.Helper()
	objs := map[string]string{}
	for _, line := range strings.Split(e.git(t, repo, "verify-pack", "-v", idx), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && len(f[0]) == 40 {
			if len(f) > 5 {
				t.Errorf("verify-pack: %s is a delta; the push writes whole objects", f[0])
			}
			objs[f[0]] = f[1]
		}
	}
	return objs
}

// TestPushSessionToALocalRepositoryInstallsAPack: a push to a repository on this machine leaves
// one pack with its index in objects/pack (no temporary files, no loose objects), which git
// verifies; a second push of the grown trail goes on top and packs only what changed: the
// chunks the first push holds unchanged are not written again.
func TestPushSessionToALocalRepositoryInstallsAPack(t *testing.T) {
	t.Parallel()
	e, sr, bare := newSessionOrigin(t)
	id := "session-1700000000000-local1"
	record := []byte(`{"id":"session-1700000000000-local1","status":"active"}` + "\n")
	trail := trailOf(200000) // about 25 MB: three chunks
	first := pushSession(t, sr, id, record, trail)
	if first.Chunks < 3 {
		t.Fatalf("%d chunks, want several", first.Chunks)
	}
	checkPushedSession(t, e, bare, id, first, record, trail)
	objects := filepath.Join(bare, "objects")
	packs := packsOf(t, objects)
	if len(packs) != 2 || !strings.HasSuffix(packs[0], ".idx") || !strings.HasSuffix(packs[1], ".pack") ||
		strings.TrimSuffix(packs[0], ".idx") != strings.TrimSuffix(packs[1], ".pack") {
		t.Fatalf("objects/pack holds %v, want one pack and its index", packs)
	}
	if got := e.git(t, bare, "count-objects"); !strings.HasPrefix(got, "0 objects") {
		t.Errorf("count-objects: %s; want no loose objects", got)
	}
	firstObjs := verifyPack(t, e, bare, filepath.Join(objects, "pack", packs[0]))
	// commit, root tree, events tree, session.json, the chunks
	if len(firstObjs) != 4+first.Chunks || firstObjs[first.Commit] != "commit" {
		t.Errorf("the first pack holds %d objects (%v), want %d with the commit", len(firstObjs), firstObjs, 4+first.Chunks)
	}

	grown := append(append([]byte(nil), trail...), trailOf(1000)...)
	second := pushSession(t, sr, id, record, grown)
	if second.Parent != first.Commit {
		t.Errorf("second push parent = %s, want the first push %s", second.Parent, first.Commit)
	}
	checkPushedSession(t, e, bare, id, second, record, grown)
	var newIdx string
	for _, n := range packsOf(t, objects) {
		if strings.HasSuffix(n, ".idx") && n != packs[0] {
			newIdx = n
		}
	}
	if newIdx == "" {
		t.Fatal("the second push left no pack of its own")
	}
	secondObjs := verifyPack(t, e, bare, filepath.Join(objects, "pack", newIdx))
	// The commit, both trees and the last chunk (which grew) are new; session.json and the
	// earlier chunks are the first push's.
	unchanged := strings.Fields(e.git(t, bare, "ls-tree", "--object-only", SessionRefPrefix+id+"~1:events"))
	unchanged = append(unchanged[:len(unchanged)-1], e.git(t, bare, "rev-parse", SessionRefPrefix+id+"~1:session.json"))
	for _, h := range unchanged {
		if _, ok := secondObjs[h]; ok {
			t.Errorf("the second pack holds %s again, which the first push holds", h)
		}
	}
	if len(secondObjs) != 4 || secondObjs[second.Commit] != "commit" {
		t.Errorf("the second pack holds %v, want the commit, two trees and the grown chunk", secondObjs)
	}
}

// TestPushSessionConcurrentlyLosesNone: pushes of one session at once (a SessionEnd push and a
// manual one) each end on top of another: the ref moves under all but one, they go again, and
// the session's history holds every push.
func TestPushSessionConcurrentlyLosesNone(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	id := "session-1700000000000-race01"
	const n = 6
	var wg sync.WaitGroup
	commits := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			sr, err := OpenSessionRemote(dir, e.gitops(), "origin", Limits{})
			if err != nil {
				errs[i] = err
				return
			}
			trail := trailOf(100 + i)
			res, err := sr.PushSession(context.Background(), SessionPush{ID: id, Record: []byte(`{"n":` + string(rune('0'+i)) + "}\n"),
				Trail: TrailSnapshot{R: strings.NewReader(string(trail)), Size: int64(len(trail))}, Time: time.Unix(1700000000, 0), Retries: 2 * n})
			if err != nil {
				errs[i] = err
				return
			}
			commits[i] = res.Commit
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("push %d: %v", i, err)
		}
	}
	history := strings.Fields(e.git(t, bare, "rev-list", SessionRefPrefix+id))
	if len(history) != n {
		t.Errorf("the session's history has %d commits, want %d", len(history), n)
	}
	for i, c := range commits {
		if !slices.Contains(history, c) {
			t.Errorf("push %d (%s) is not in the session's history: lost", i, c)
		}
	}
	e.git(t, bare, "fsck", "--strict", "--no-dangling")
}

// TestPushSessionRetriesALockedRef: a session's ref locked past git's 100 ms (another push of
// the session syncing it on a loaded machine, or a crashed one) is a lost race, tried again like
// a moved ref; a lock still there after the last attempt is git's error, naming the lock file.
// It used to end the first attempt: one of six concurrent pushes failed in a loaded full test run
// (TestPushSessionConcurrentlyLosesNone).
func TestPushSessionRetriesALockedRef(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	id := "session-1700000000000-locked"
	lock := filepath.Join(bare, "refs", "agent-hooks", "sessions", id+".lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sr, err := OpenSessionRemote(dir, e.gitops(), "origin", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	trail := trailOf(10)
	res, err := sr.PushSession(context.Background(), SessionPush{ID: id, Record: []byte("{}\n"),
		Trail: TrailSnapshot{R: strings.NewReader(string(trail)), Size: int64(len(trail))}, Retries: 2})
	if err == nil || !strings.Contains(err.Error(), lock+": file exists") {
		t.Fatalf("push with the ref locked: %v, want git's error naming %s", err, lock)
	}
	if res.Attempts != 3 {
		t.Errorf("the push made %d attempts, want 3 (Retries 2)", res.Attempts)
	}
	if out := e.git(t, bare, "for-each-ref", SessionRefPrefix); out != "" {
		t.Errorf("the ref was written under another's lock: %s", out)
	}
}

// TestPushSessionToANonBareRepositoryAndAWorktree: a remote that is a work tree's repository
// (its .git) gets the session, and so does one that is a linked worktree of it: the ref and
// the objects go to the common directory, as git-receive-pack puts them.
func TestPushSessionToANonBareRepositoryAndAWorktree(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	other := e.newRepo(t, map[string]string{"b.txt": "b\n"})
	linked := filepath.Join(t.TempDir(), "linked")
	e.git(t, other, "worktree", "add", "-q", "-b", "side", linked)
	e.git(t, dir, "remote", "add", "nonbare", other)
	e.git(t, dir, "remote", "add", "worktree", linked)
	record := []byte("{}\n")
	trail := trailOf(50)
	for _, remote := range []string{"nonbare", "worktree"} {
		sr, err := OpenSessionRemote(dir, e.gitops(), remote, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		id := "session-1700000000000-" + remote
		res := pushSession(t, sr, id, record, trail)
		checkPushedSession(t, e, other, id, res, record, trail)
		if got := e.git(t, linked, "for-each-ref", "--format=%(objectname)", SessionRefPrefix+id); got != res.Commit {
			t.Errorf("%s: the linked worktree sees %s at %q, want %s", remote, SessionRefPrefix+id, got, res.Commit)
		}
	}
	if _, err := os.Stat(filepath.Join(other, ".git", "worktrees", "linked", "objects")); err == nil {
		t.Error("the push made an objects directory in the worktree's own git directory")
	}
	e.wantClean(t, other)
	e.wantClean(t, linked)
}

// TestPushSessionToALocalPathThatIsNoLongerARepository: a remote path whose repository went
// away after the remote was opened is "repository not found", as go-git's transports say.
func TestPushSessionToALocalPathThatIsNoLongerARepository(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	sr, err := OpenSessionRemote(dir, e.gitops(), "origin", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(bare, "objects")); err != nil {
		t.Fatal(err)
	}
	_, err = sr.PushSession(context.Background(), SessionPush{ID: "session-1700000000000-gone01", Record: []byte("{}\n")})
	if err == nil || !strings.Contains(err.Error(), "push session to origin: repository not found") {
		t.Errorf("err = %v, want repository not found", err)
	}
	if _, err := os.Stat(filepath.Join(bare, "objects")); err == nil {
		t.Error("the push made an objects directory")
	}
}
