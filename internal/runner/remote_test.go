package runner

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// remoteHarness is a harness whose workspace is a git repository with a bare repository, remote
// "local" by its path, served also by the real git daemon (remote "daemon") and git http-backend
// (remote "http") on 127.0.0.1, each counting the upload-pack sessions it serves: the ref
// advertisements the remote makes.
type remoteHarness struct {
	*harness
	bare        string
	daemonLog   string
	httpAdverts atomic.Int32
}

func newRemoteHarness(t *testing.T) *remoteHarness {
	t.Helper()
	for _, prog := range []string{"git", "git-daemon", "git-http-backend"} {
		if prog != "git" {
			out, err := exec.Command("git", "--exec-path").Output()
			if err != nil {
				t.Skip("needs git")
			}
			prog = filepath.Join(strings.TrimSpace(string(out)), prog)
		}
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("needs %s", prog)
		}
	}
	rh := &remoteHarness{harness: newHarness(t, `{"hooks": {}}`)}
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	root := t.TempDir()
	rh.bare = filepath.Join(root, "sessions.git")
	git("", "init", "-q", "--bare", rh.bare)
	git(rh.ws, "init", "-q")

	// git daemon, logging each request it serves to a file: the line is written before the
	// upload-pack it starts advertises anything.
	port := freePort(t)
	rh.daemonLog = filepath.Join(t.TempDir(), "daemon.log")
	logf, err := os.Create(rh.daemonLog)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	daemon := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--verbose", "--log-destination=stderr",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+root, root)
	daemon.Env, daemon.Stderr = env, logf
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = daemon.Process.Kill()
		_ = daemon.Wait()
	})
	waitForPort(t, port)

	// git http-backend (smart HTTP): each upload-pack session starts with a GET of info/refs.
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack" {
			rh.httpAdverts.Add(1)
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	git(rh.ws, "remote", "add", "local", rh.bare)
	git(rh.ws, "remote", "add", "daemon", fmt.Sprintf("git://127.0.0.1:%d/sessions.git", port))
	git(rh.ws, "remote", "add", "http", srv.URL+"/sessions.git")
	return rh
}

// adverts is how many upload-pack sessions the remote has served so far.
func (rh *remoteHarness) adverts(remote string) int {
	rh.t.Helper()
	switch remote {
	case "http":
		return int(rh.httpAdverts.Load())
	case "daemon":
		b, err := os.ReadFile(rh.daemonLog)
		if err != nil {
			rh.t.Fatal(err)
		}
		return strings.Count(string(b), "Request upload-pack for ")
	}
	rh.t.Fatalf("no count of %s's advertisements", remote)
	return 0
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
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

// TestRemoteSessionsAdvertiseTheRefsOnce: listing the sessions on a remote and reading the records
// shown costs the remote one advertisement of its refs, cold cache or warm, over git daemon and
// smart HTTP alike; so does reading one session (show, verify, pull). A second advertisement
// of every session's ref is what made `session list --remote` cost twice `git ls-remote`.
func TestRemoteSessionsAdvertiseTheRefsOnce(t *testing.T) {
	t.Parallel()
	rh := newRemoteHarness(t)
	ctx := context.Background()
	var ids []string
	for range 4 {
		s := rh.start()
		if _, err := rh.r.PushSession(ctx, s.ID, RemoteRequest{Remote: "local"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	for _, remote := range []string{"daemon", "http"} {
		for _, cache := range []string{"cold", "warm"} {
			before := rh.adverts(remote)
			list, problems, err := rh.r.RemoteSessions(ctx, RemoteRequest{Remote: remote}, 2)
			if err != nil || len(problems) > 0 {
				t.Fatalf("%s, %s cache: %v %v", remote, cache, err, problems)
			}
			if len(list) != 2 || list[0].ID != ids[3] || list[1].ID != ids[2] || list[0].Status == "" {
				t.Fatalf("%s, %s cache: listed %+v, want the records of %s and %s", remote, cache, list, ids[3], ids[2])
			}
			if n := rh.adverts(remote) - before; n != 1 {
				t.Errorf("%s, %s cache: the remote advertised its refs %d times, want once", remote, cache, n)
			}
		}
		before := rh.adverts(remote)
		rs, err := rh.r.LookupRemote(ctx, ids[0], RemoteRequest{Remote: remote})
		if err != nil || rs.ID != ids[0] {
			t.Fatalf("%s: LookupRemote(%s) = %+v, %v", remote, ids[0], rs, err)
		}
		if n := rh.adverts(remote) - before; n != 1 {
			t.Errorf("%s: reading one session, the remote advertised its refs %d times, want once", remote, n)
		}
	}
}
