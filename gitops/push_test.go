package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/internal/progress/progresstest"
)

// newBare makes an empty bare repository that accepts pushes over every transport.
func (e *testEnv) newBare(t *testing.T, dir string) string {
	t.Helper()
	e.git(t, "", "init", "-q", "--bare", "-b", "main", dir)
	e.git(t, dir, "config", "http.receivepack", "true")
	return dir
}

// commitFile commits one file change with gitops so that there is something to push.
func commitFile(t *testing.T, e *testEnv, dir, name, content string) string {
	t.Helper()
	writeFiles(t, dir, map[string]string{name: content})
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "change " + name})
	if err != nil {
		t.Fatal(err)
	}
	return res.Hash
}

func TestPushToBareRepositoryOnDisk(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	bare := e.newBare(t, filepath.Join(t.TempDir(), "remote.git"))
	// A relative path, as `git remote add origin ../remote.git` would write it.
	rel, err := filepath.Rel(dir, bare)
	must(t, err)
	e.git(t, dir, "remote", "add", "origin", rel)
	sha := commitFile(t, e, dir, "b.txt", "b\n")

	var progress bytes.Buffer
	res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{SetUpstream: true, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if res.UpToDate || res.Hash != sha || res.RemoteRef != "refs/heads/main" {
		t.Errorf("result = %+v, want main pushed at %s", res, sha)
	}
	e.wantRef(t, bare, "refs/heads/main", sha)
	e.fsck(t, dir)
	if got := e.git(t, dir, "rev-parse", "refs/remotes/origin/main"); got != sha {
		t.Errorf("origin/main = %s, want %s", got, sha)
	}
	if got := e.git(t, dir, "rev-parse", "--abbrev-ref", "main@{upstream}"); got != "origin/main" {
		t.Errorf("upstream = %q, want origin/main", got)
	}
	// git itself agrees that everything is pushed.
	if st := e.git(t, dir, "status", "-sb"); !strings.HasPrefix(st, "## main...origin/main") || strings.Contains(st, "ahead") {
		t.Errorf("git status -sb = %q", st)
	}

	res, err = openRepo(t, e, dir).Push(context.Background(), PushOptions{})
	if err != nil || !res.UpToDate {
		t.Errorf("second push = %+v, %v; want up to date", res, err)
	}
}

func TestPushRejectsNonFastForwardAndKeepsTheCommit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	e.git(t, dir, "push", "-q", "origin", "main")
	e.git(t, dir, "fetch", "-q", "origin")

	// Someone else pushes first.
	other := filepath.Join(t.TempDir(), "other")
	e.git(t, "", "clone", "-q", bare, other)
	e.git(t, other, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "--allow-empty", "-m", "theirs")
	e.git(t, other, "push", "-q", "origin", "main")
	theirs := e.git(t, other, "rev-parse", "HEAD")

	ours := commitFile(t, e, dir, "mine.txt", "mine\n")
	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Retries: 2, RetryDelay: time.Millisecond})
	var pe *PushError
	if !errors.As(err, &pe) || !pe.Rejected || !strings.Contains(err.Error(), "non-fast-forward") {
		t.Fatalf("err = %v, want a non-fast-forward rejection", err)
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != ours {
		t.Errorf("local HEAD = %s, want the local commit %s kept", got, ours)
	}
	if got := e.git(t, bare, "rev-parse", "main"); got != theirs {
		t.Errorf("remote main = %s, want theirs %s untouched", got, theirs)
	}

	// force with a stale lease (origin/main is behind the remote) is refused too...
	_, err = openRepo(t, e, dir).Push(context.Background(), PushOptions{Force: true})
	if !errors.As(err, &pe) || !pe.Rejected || !strings.Contains(err.Error(), "lease") {
		t.Fatalf("force with stale lease: err = %v", err)
	}
	// ...and goes through once the remote state is known.
	e.git(t, dir, "fetch", "-q", "origin")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, bare, "main", ours)
}

func TestPushDetachedHeadInActions(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	e.git(t, dir, "checkout", "-q", "--detach")
	sha := commitFile(t, e, dir, "pr.txt", "pr\n")

	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err == nil || !strings.Contains(err.Error(), "detached") {
		t.Fatalf("outside Actions: err = %v, want detached HEAD error", err)
	}
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_REF_NAME"] = "12/merge"
	e.vars["GITHUB_HEAD_REF"] = "feature/pr-branch"
	res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Branch: "current"})
	if err != nil {
		t.Fatal(err)
	}
	if res.RemoteRef != "refs/heads/feature/pr-branch" {
		t.Errorf("pushed to %s", res.RemoteRef)
	}
	e.wantRef(t, bare, "feature/pr-branch", sha)
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestPushToGitDaemon(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := t.TempDir()
	bare := e.newBare(t, filepath.Join(base, "project.git"))
	port := freePort(t)
	startGitDaemon(t, e, base, port)

	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "remote", "add", "origin", fmt.Sprintf("git://127.0.0.1:%d/project.git", port))
	sha := commitFile(t, e, dir, "b.txt", "b\n")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{SetUpstream: true}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, bare, "main", sha)
	// The real git CLI fetches back what go-git pushed.
	clone := filepath.Join(t.TempDir(), "clone")
	e.git(t, "", "clone", "-q", fmt.Sprintf("git://127.0.0.1:%d/project.git", port), clone)
	if got := e.git(t, clone, "rev-parse", "HEAD"); got != sha {
		t.Errorf("clone HEAD = %s, want %s", got, sha)
	}
}

// startGitDaemon serves base over git:// on 127.0.0.1:port with the real git daemon, pushes
// allowed, until the test ends. `git daemon` runs git-daemon as a child of its own: the daemon is
// started in a process group of its own and the whole group is ended, so that no git-daemon
// outlives the test.
func startGitDaemon(t *testing.T, e *testEnv, base string, port int) {
	t.Helper()
	daemon := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
		"--informative-errors", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+base, base)
	daemon.Env = e.environ()
	daemon.SysProcAttr = daemonProcAttr()
	must(t, daemon.Start())
	t.Cleanup(func() {
		killGroup(daemon.Process.Pid)
		_ = daemon.Wait()
	})
	waitForPort(t, port)
}

func waitForPort(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on 127.0.0.1:%d: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// smartHTTP serves the repositories below root with the real git http-backend (smart HTTP), behind
// basic auth that accepts only x-access-token:token. failFirst requests are answered 503 first.
func smartHTTP(t *testing.T, e *testEnv, root, token string, failFirst int32) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	execPath := e.git(t, "", "--exec-path")
	backend := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + e.home,
			"GIT_CONFIG_NOSYSTEM=1", "PATH=" + e.vars["PATH"]},
	}
	var failures atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failures.Load() < failFirst {
			failures.Add(1)
			http.Error(w, "try again later", http.StatusServiceUnavailable)
			return
		}
		user, pass, ok := r.BasicAuth()
		if !ok || user != "x-access-token" || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &failures
}

// httpRepo makes a repository and a bare repository served over smart HTTP (see smartHTTP); url
// is the bare repository's, not yet configured as a remote.
func httpRepo(t *testing.T, e *testEnv, token string, failFirst int32) (dir, bare, url string, failures *atomic.Int32) {
	t.Helper()
	root := t.TempDir()
	bare = e.newBare(t, filepath.Join(root, "repo.git"))
	srv, failures := smartHTTP(t, e, root, token, failFirst)
	return e.newRepo(t, map[string]string{"a.txt": "a\n"}), bare, srv.URL + "/repo.git", failures
}

func TestPushSmartHTTPWithToken(t *testing.T) {
	t.Parallel()
	const token = "ghs_S3cretTokenValue0123456789"
	e := newTestEnv(t)
	dir, bare, url, failures := httpRepo(t, e, token, 2)
	e.git(t, dir, "remote", "add", "origin", url)
	sha := commitFile(t, e, dir, "b.txt", "b\n")

	// No token: a clear authentication error.
	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Retries: 3, RetryDelay: time.Millisecond})
	var pe *PushError
	if !errors.As(err, &pe) || !pe.Auth {
		t.Fatalf("without a token: err = %v, want an authentication error", err)
	}

	// A wrong token: refused, and the token appears nowhere.
	failures.Store(0)
	e.vars["GITHUB_TOKEN"] = "ghs_WrongTokenWrongTokenWrong"
	var progress bytes.Buffer
	_, err = openRepo(t, e, dir).Push(context.Background(), PushOptions{Retries: 3, RetryDelay: time.Millisecond, Progress: &progress})
	if !errors.As(err, &pe) || !pe.Auth {
		t.Fatalf("with a wrong token: err = %v, want an authentication error", err)
	}
	for _, s := range []string{err.Error(), progress.String()} {
		if strings.Contains(s, "ghs_WrongToken") {
			t.Errorf("the token leaked: %q", s)
		}
	}
	if got, _ := e.gitErr(bare, "rev-parse", "--verify", "-q", "main"); got != "" {
		t.Errorf("remote main exists after refused pushes: %s", got)
	}

	// GH_TOKEN is used when GITHUB_TOKEN is not set; the first two requests fail with 503 and
	// are retried.
	failures.Store(0)
	delete(e.vars, "GITHUB_TOKEN")
	e.vars["GH_TOKEN"] = token
	progress.Reset()
	res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Retries: 3, RetryDelay: time.Millisecond, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 {
		t.Errorf("attempts = %d, want 3 (two 503s, then success)", res.Attempts)
	}
	if strings.Contains(progress.String(), token) || strings.Contains(res.URL, token) {
		t.Errorf("the token leaked: %q %q", progress.String(), res.URL)
	}
	e.wantRef(t, bare, "main", sha)
}

func TestPushGivesUpAfterBoundedRetries(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, _, url, failures := httpRepo(t, e, "tok", 1000)
	e.git(t, dir, "remote", "add", "origin", url)
	e.vars["GITHUB_TOKEN"] = "tok"
	res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Retries: 2, RetryDelay: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Fatalf("err = %v, want giving up after 3 attempts", err)
	}
	if res.Attempts != 3 || failures.Load() != 3 {
		t.Errorf("attempts = %d, server saw %d requests; want 3 and 3", res.Attempts, failures.Load())
	}
}

// TestPushStopsWhenInterruptedBetweenAttempts: a push cancelled while it waits to retry (the
// hook's timeout, an interrupt) makes no further attempt and says it was interrupted.
func TestPushStopsWhenInterruptedBetweenAttempts(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, _, url, failures := httpRepo(t, e, "tok", 1000)
	e.git(t, dir, "remote", "add", "origin", url)
	e.vars["GITHUB_TOKEN"] = "tok"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress syncWriter
	progress.onWrite = func(s string) {
		if strings.Contains(s, "retrying in") {
			cancel() // during the wait for the second attempt
		}
	}
	res, err := openRepo(t, e, dir).Push(ctx, PushOptions{Retries: 3, RetryDelay: time.Hour, Progress: &progress})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("err = %v, want the push interrupted", err)
	}
	if res.Attempts != 1 || failures.Load() != 1 {
		t.Errorf("attempts = %d, server saw %d requests; want 1 and 1", res.Attempts, failures.Load())
	}
}

// syncWriter is a Progress writer that hands each write to onWrite.
type syncWriter struct {
	mu      sync.Mutex
	onWrite func(string)
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.onWrite != nil {
		w.onWrite(string(p))
	}
	return len(p), nil
}

func TestPushCredentialsInURLNeverShown(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, _, url, _ := httpRepo(t, e, "right", 0)
	e.git(t, dir, "remote", "add", "origin", strings.Replace(url, "http://", "http://x-access-token:UrlSecret123@", 1))
	res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{})
	if err == nil {
		t.Fatal("push with wrong URL credentials succeeded")
	}
	if strings.Contains(err.Error(), "UrlSecret123") || strings.Contains(res.URL, "UrlSecret123") {
		t.Errorf("URL credentials leaked: %v / %s", err, res.URL)
	}
}

// TestPushForceLeaseHoldsWhenTheRemoteMovesDuringThePush moves the remote branch after the lease
// could have been checked and before the push's own look at the remote: the force push must be
// refused rather than overwrite the commit that just arrived.
func TestPushForceLeaseHoldsWhenTheRemoteMovesDuringThePush(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	root := t.TempDir()
	bare := e.newBare(t, filepath.Join(root, "repo.git"))
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	base := e.git(t, dir, "rev-parse", "HEAD")
	e.git(t, dir, "push", "-q", bare, "main")

	// Someone else's commit, on a side branch of the remote until it "arrives" on main.
	other := filepath.Join(t.TempDir(), "other")
	e.git(t, "", "clone", "-q", bare, other)
	e.git(t, other, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "--allow-empty", "-m", "theirs")
	e.git(t, other, "push", "-q", "origin", "HEAD:refs/heads/side")
	theirs := e.git(t, other, "rev-parse", "HEAD")

	execPath := e.git(t, "", "--exec-path")
	backend := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + e.home,
			"GIT_CONFIG_NOSYSTEM=1", "PATH=" + e.vars["PATH"]},
	}
	var moved atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("service") == "git-receive-pack" && !moved.Swap(true) {
			if out, err := e.gitErr(bare, "update-ref", "refs/heads/main", theirs, base); err != nil {
				t.Errorf("update-ref: %v\n%s", err, out)
			}
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.git(t, dir, "remote", "add", "origin", srv.URL+"/repo.git")
	e.git(t, dir, "update-ref", "refs/remotes/origin/main", base) // fetched: the lease is base

	e.git(t, dir, "commit", "-q", "--amend", "-m", "rewritten")
	ours := e.git(t, dir, "rev-parse", "HEAD")
	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Force: true})
	var pe *PushError
	if !errors.As(err, &pe) || !pe.Rejected {
		t.Errorf("force push over a commit that arrived meanwhile: err = %v, want a rejection", err)
	}
	e.wantRef(t, bare, "main", theirs)
	e.wantRef(t, dir, "HEAD", ours)
}

// TestPushMalformedURLNeverShowsItsCredentials: a remote URL that does not parse (a typo in the
// port, a bad escape, a space in the password) is reported without the credentials it holds;
// Go's URL parser quotes the whole URL in its errors.
func TestPushMalformedURLNeverShowsItsCredentials(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	for _, u := range []string{
		"https://x-access-token:Secret0123456789@127.0.0.1:badport/repo.git",
		"https://Secret0123456789@example.com/re%zzpo.git",
		"https://x-access-token:Secret01 23456789@example.com/repo.git",
	} {
		e.git(t, dir, "config", "remote.origin.url", u)
		_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{})
		var pe *PushError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: err = %v, want a PushError", u, err)
		}
		for _, s := range []string{"Secret01", "23456789"} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("the URL's credentials leaked: %v", err)
			}
		}
	}
}

// TestPushTokenOnlyForGitHubHosts: GITHUB_TOKEN and GH_TOKEN are GitHub's credentials; an https
// remote elsewhere (GitLab, a mirror) must not be sent them.
func TestPushTokenOnlyForGitHubHosts(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.vars["GITHUB_TOKEN"] = "ghs_Token0123456789"
	r := openRepo(t, e, e.newRepo(t, map[string]string{"a.txt": "a\n"}))
	for _, tc := range []struct {
		url, serverURL string
		want           bool
	}{
		{"https://github.com/o/r.git", "", true},
		{"https://GitHub.com:443/o/r.git", "", true},
		{"https://octo.ghe.com/o/r.git", "", true},
		{"https://git.corp.example/o/r.git", "https://git.corp.example", true}, // GitHub Enterprise Server in Actions
		{"http://127.0.0.1:8080/r.git", "", true},
		{"https://gitlab.com/o/r.git", "", false},
		{"https://github.com.evil.example/o/r.git", "", false},
		{"https://git.corp.example/o/r.git", "", false},
	} {
		e.vars["GITHUB_SERVER_URL"] = tc.serverURL
		a, _, err := r.auth(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := a != nil; got != tc.want {
			t.Errorf("%s (GITHUB_SERVER_URL %q): token sent = %v, want %v", tc.url, tc.serverURL, got, tc.want)
		}
	}
}

// TestPushStatus: with a Status, the push reports one wait (the remote, its URL without the
// token) whose detail is the latest line of what the push says meanwhile (here a retry); that
// text still reaches Progress, once the push is over, and the token nowhere.
func TestPushStatus(t *testing.T) {
	t.Parallel()
	const token = "ghs_S3cretTokenValue0123456789"
	e := newTestEnv(t)
	dir, _, url, _ := httpRepo(t, e, token, 1)
	e.git(t, dir, "remote", "add", "origin", url)
	commitFile(t, e, dir, "b.txt", "b\n")
	e.vars["GITHUB_TOKEN"] = token
	var out bytes.Buffer
	rec := &progresstest.Recorder{}
	res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Retries: 3, RetryDelay: time.Millisecond, Progress: &out, Status: rec})
	if err != nil {
		t.Fatal(err)
	}
	waits := rec.Waits()
	if len(waits) != 1 {
		t.Fatalf("%d waits, want 1", len(waits))
	}
	w := waits[0]
	if w.What != "push to origin" || w.Where != res.URL || w.DoneCount() != 1 {
		t.Errorf("wait %q at %q, ended %d times", w.What, w.Where, w.DoneCount())
	}
	details := strings.Join(w.Details(), "\n")
	if !strings.Contains(details, "push to origin failed") || !strings.Contains(details, "retrying in") {
		t.Errorf("details %q say nothing of the retry", details)
	}
	if !strings.Contains(out.String(), "retrying in") {
		t.Errorf("Progress did not get what the push said: %q", out.String())
	}
	for _, s := range []string{details, out.String(), w.Where} {
		if strings.Contains(s, token) {
			t.Errorf("the token leaked: %q", s)
		}
	}
}
