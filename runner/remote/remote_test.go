package remote

import (
	"context"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// remoteHarness is a harness whose workspace is a git repository with a bare repository, remote
// "local" by its path, served also by the real git daemon (remote "daemon") and git http-backend
// (remote "http") on 127.0.0.1, each counting the upload-pack sessions it serves: the ref
// advertisements the remote makes.
type remoteHarness struct {
	*harness
	bare        string
	daemonConns atomic.Int32
	httpAdverts atomic.Int32
}

func newRemoteHarness(t *testing.T) *remoteHarness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
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
	execPath := git("", "--exec-path")
	for _, prog := range []string{"git-daemon", "git-http-backend"} {
		if _, err := os.Stat(filepath.Join(execPath, prog)); err != nil {
			t.Skipf("needs %s", prog)
		}
	}
	root := t.TempDir()
	rh.bare = filepath.Join(root, "sessions.git")
	git("", "init", "-q", "--bare", rh.bare)
	git(rh.ws, "init", "-q")

	// git daemon, one per connection (--inetd) on a listener of the test's, which counts them:
	// a git:// connection serves one upload-pack, one advertisement.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var served sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		served.Wait() // before the repositories are removed
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			rh.daemonConns.Add(1)
			served.Go(func() {
				defer c.Close()
				daemon := exec.Command("git", "daemon", "--inetd", "--export-all", "--base-path="+root, root)
				daemon.Env, daemon.Stdin, daemon.Stdout = env, c, c
				_ = daemon.Run()
			})
		}
	}()

	// git http-backend (smart HTTP): each upload-pack session starts with a GET of info/refs.
	backend := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
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
	git(rh.ws, "remote", "add", "daemon", "git://"+l.Addr().String()+"/sessions.git")
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
		return int(rh.daemonConns.Load())
	}
	rh.t.Fatalf("no count of %s's advertisements", remote)
	return 0
}

// pushSessions starts n sessions and pushes them to the bare repository, by its path; their
// ids, oldest first.
func (rh *remoteHarness) pushSessions(n int) []string {
	rh.t.Helper()
	var ids []string
	for range n {
		s := rh.start()
		if _, err := Push(context.Background(), rh.r, s.ID, Request{Remote: "local"}); err != nil {
			rh.t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// TestRemoteSessionsAdvertiseTheRefsOnce: listing the sessions on a remote and reading the records
// shown costs the remote one advertisement of its refs, cold cache or warm, over git daemon and
// smart HTTP alike; so does reading one session (show, verify, pull). A second advertisement
// of every session's ref is what made `session list --remote` cost twice `git ls-remote`.
func TestRemoteSessionsAdvertiseTheRefsOnce(t *testing.T) {
	t.Parallel()
	rh := newRemoteHarness(t)
	ctx := context.Background()
	ids := rh.pushSessions(4)
	for _, remote := range []string{"daemon", "http"} {
		for _, cache := range []string{"cold", "warm"} {
			before := rh.adverts(remote)
			list, problems, err := List(ctx, rh.r, Request{Remote: remote}, 2)
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
		rs, err := Lookup(ctx, rh.r, ids[0], Request{Remote: remote})
		if err != nil || rs.ID != ids[0] {
			t.Fatalf("%s: LookupRemote(%s) = %+v, %v", remote, ids[0], rs, err)
		}
		if n := rh.adverts(remote) - before; n != 1 {
			t.Errorf("%s: reading one session, the remote advertised its refs %d times, want once", remote, n)
		}
	}
}
