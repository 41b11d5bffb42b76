package gitops

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// catFile is `git cat-file blob OBJ` in repo, byte for byte.
func catFile(t *testing.T, e *testEnv, repo, obj string) string {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "blob", obj)
	cmd.Dir = repo
	cmd.Env = e.environ()
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file blob %s: %v", obj, err)
	}
	return string(b)
}

// trailOf makes an audit trail of n lines of about 100 bytes.
func trailOf(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"seq":%d,"event":"PreToolUse","name":"lint-%d","status":"ok","reason":"%s"}`+"\n", i+1, i%7, strings.Repeat("r", i%50))
	}
	return b.Bytes()
}

func pushSession(t *testing.T, sr *SessionRemote, id string, record, trail []byte) *SessionPushResult {
	t.Helper()
	size, err := SnapshotSize(bytes.NewReader(trail), int64(len(trail)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := sr.PushSession(context.Background(), SessionPush{ID: id, Record: record, Trail: TrailSnapshot{R: bytes.NewReader(trail), Size: size}, Time: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkPushedSession has the git CLI read what a push wrote to bare: the ref, the commit and its
// tree, the record and the trail (its chunks in order), and fsck.
func checkPushedSession(t *testing.T, e *testEnv, bare, id string, res *SessionPushResult, record, trail []byte) {
	t.Helper()
	ref := SessionRefPrefix + id
	if got := e.git(t, bare, "for-each-ref", "--format=%(objectname) %(objecttype)", ref); got != res.Commit+" commit" {
		t.Fatalf("for-each-ref %s = %q, want %s commit", ref, got, res.Commit)
	}
	if got := catFile(t, e, bare, ref+":session.json"); got != string(record) {
		t.Errorf("session.json = %q, want %q", got, record)
	}
	names := strings.Fields(e.git(t, bare, "ls-tree", "--name-only", ref+":events"))
	if len(names) != res.Chunks {
		t.Errorf("events/ holds %v, want %d chunks", names, res.Chunks)
	}
	var got bytes.Buffer
	for _, n := range names {
		got.WriteString(catFile(t, e, bare, ref+":events/"+n))
	}
	if !bytes.Equal(got.Bytes(), trail) {
		t.Errorf("the chunks read back hold %d bytes, want the trail's %d", got.Len(), len(trail))
	}
	e.git(t, bare, "fsck", "--strict", "--no-dangling")
}

// newSessionOrigin is a repository whose origin is a bare repository on this machine, and the
// session remote for it.
func newSessionOrigin(t *testing.T) (e *testEnv, sr *SessionRemote, bare string) {
	t.Helper()
	e = newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	sr, err := OpenSessionRemote(dir, e.gitops(), "", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return e, sr, bare
}

func TestPushSessionToABareRepository(t *testing.T) {
	t.Parallel()
	e, sr, bare := newSessionOrigin(t)
	id := "session-1700000000000-abcdef"
	record := []byte(`{"id":"session-1700000000000-abcdef","status":"active"}` + "\n")
	trail := trailOf(3)
	first := pushSession(t, sr, id, record, trail)
	if first.Parent != "" || first.Chunks != 1 {
		t.Errorf("first push = %+v, want one chunk and no parent", first)
	}
	checkPushedSession(t, e, bare, id, first, record, trail)

	// A later push of the same session goes on top of the first: its history is kept.
	record2 := []byte(`{"id":"session-1700000000000-abcdef","status":"completed"}` + "\n")
	trail2 := append(append([]byte(nil), trail...), trailOf(2)...)
	second := pushSession(t, sr, id, record2, trail2)
	if second.Parent != first.Commit {
		t.Errorf("second push parent = %s, want the first push %s", second.Parent, first.Commit)
	}
	checkPushedSession(t, e, bare, id, second, record2, trail2)
	if got := e.git(t, bare, "rev-list", "--count", SessionRefPrefix+id); got != "2" {
		t.Errorf("the session's history has %s commits, want 2", got)
	}
	// Nothing else on the remote changed: its branches are untouched.
	if got := e.git(t, bare, "for-each-ref", "--format=%(refname)"); got != SessionRefPrefix+id {
		t.Errorf("refs on the remote = %q", got)
	}

	// Read back without checking anything out.
	listed, err := sr.ListSessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer listed.Close()
	if sessions := listed.Sessions; len(sessions) != 1 || sessions[0].ID != id || sessions[0].Commit != second.Commit {
		t.Fatalf("Sessions = %+v", sessions)
	}
	cache, err := sr.OpenSessionCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Fetch(context.Background(), listed, listed.Sessions); err != nil {
		t.Fatal(err)
	}
	ps, err := cache.Session(id)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := ps.OpenTrail()
	back, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(back, trail2) || !bytes.Equal(ps.Record, record2) {
		t.Errorf("read back: record %q, trail of %d bytes (%v); want %q and %d bytes", ps.Record, len(back), err, record2, len(trail2))
	}
	if _, err := cache.Session("session-1-nothere"); err == nil {
		t.Error("a session that was never pushed was read")
	}
}

// TestPushSessionCutsTheTrailAtLineEnds: a trail larger than a chunk is cut into several, each
// ending at a line end, that read back as the trail; a torn last line is left out.
func TestPushSessionCutsTheTrailAtLineEnds(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	sr, err := OpenSessionRemote(dir, e.gitops(), "origin", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	trail := trailOf(300000) // about 38 MB: five chunks
	torn := append(append([]byte(nil), trail...), `{"seq":300001,"eve`...)
	size, err := SnapshotSize(bytes.NewReader(torn), int64(len(torn)))
	if err != nil || size != int64(len(trail)) {
		t.Fatalf("snapshot = %d, %v; want the %d bytes before the torn line", size, err, len(trail))
	}
	id := "session-1700000000000-big123"
	res, err := sr.PushSession(context.Background(), SessionPush{ID: id, Record: []byte("{}\n"), Trail: TrailSnapshot{R: bytes.NewReader(torn), Size: size}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks < 4 {
		t.Errorf("%d chunks, want the trail cut in several", res.Chunks)
	}
	checkPushedSession(t, e, bare, id, res, []byte("{}\n"), trail)
	for _, n := range strings.Fields(e.git(t, bare, "ls-tree", "--name-only", SessionRefPrefix+id+":events")) {
		chunk := catFile(t, e, bare, SessionRefPrefix+id+":events/"+n)
		if !strings.HasSuffix(chunk, "}\n") {
			t.Errorf("chunk %s does not end at a line end: …%q", n, chunk[len(chunk)-20:])
		}
	}
}

func TestPushSessionOverGitDaemonAndSmartHTTP(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	const token = "ghs_S3cretTokenValue0123456789"

	// git daemon
	base := t.TempDir()
	daemonBare := e.newBare(t, filepath.Join(base, "project.git"))
	port := freePort(t)
	startGitDaemon(t, e, base, port)

	// git http-backend behind a token
	dir, httpBare, url, _ := httpRepo(t, e, token, 0)
	e.git(t, dir, "remote", "add", "daemon", fmt.Sprintf("git://127.0.0.1:%d/project.git", port))
	e.git(t, dir, "remote", "add", "origin", url)
	e.vars["GITHUB_TOKEN"] = token

	record := []byte(`{"id":"x"}` + "\n")
	trail := trailOf(1000)
	for _, tc := range []struct{ remote, bare string }{{"daemon", daemonBare}, {"origin", httpBare}} {
		sr, err := OpenSessionRemote(dir, e.gitops(), tc.remote, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		id := "session-1700000000000-" + tc.remote
		res := pushSession(t, sr, id, record, trail)
		checkPushedSession(t, e, tc.bare, id, res, record, trail)
		listed, err := sr.ListSessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if list := listed.Sessions; len(list) != 1 || list[0].ID != id {
			t.Errorf("%s: Sessions = %+v", tc.remote, list)
		}
		cache, err := sr.OpenSessionCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		err = cache.Fetch(context.Background(), listed, listed.Sessions)
		listed.Close()
		if err != nil {
			t.Fatal(err)
		}
		ps, err := cache.Session(id)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := ps.OpenTrail()
		if back, _ := io.ReadAll(r); !bytes.Equal(back, trail) {
			t.Errorf("%s: trail read back differs", tc.remote)
		}
	}

	// Without the token the http remote refuses, and says so without the token.
	delete(e.vars, "GITHUB_TOKEN")
	sr, err := OpenSessionRemote(dir, e.gitops(), "origin", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.PushSession(context.Background(), SessionPush{ID: "session-1700000000000-noauth", Record: record})
	if err == nil || !strings.Contains(err.Error(), "authentication required") {
		t.Errorf("without a token: %v", err)
	}
}
