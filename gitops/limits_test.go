package gitops

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/crypto/ssh"
)

// hangGuard turns a hang into a failure. It is no timing: the limits under test are a few
// hundred milliseconds, and an operation they bound returns long before it.
const hangGuard = 60 * time.Second

// returns runs f and fails the test if f is still running at the hang guard.
func returns[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s: still waiting on the remote after %s", what, hangGuard)
		panic("unreachable")
	}
}

// silentServer listens on 127.0.0.1 and holds every connection it accepts without sending a
// byte, until the test ends: a remote that takes the connection and never answers. Each
// connection gets greeting first, if any (a remote that answers, then stops).
func silentServer(t *testing.T, greeting func(net.Conn)) string {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	l := serve(t, "tcp", "127.0.0.1:0", func(c net.Conn) {
		defer c.Close()
		if greeting != nil {
			greeting(c)
		}
		<-done
	})
	return l.Addr().String()
}

// silentRemotes is a repository with remotes on a silent server for each network transport.
func silentRemotes(t *testing.T, e *testEnv, addr string) (dir string, remotes []string) {
	t.Helper()
	dir = e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "remote", "add", "git", "git://"+addr+"/project.git")
	e.git(t, dir, "remote", "add", "http", "http://"+addr+"/project.git")
	e.git(t, dir, "remote", "add", "ssh", "ssh://git@"+addr+"/project.git")
	return dir, []string{"git", "http", "ssh"}
}

// withSSHKey gives the test's home an ssh key and an empty known_hosts, so that an ssh remote
// has credentials to try.
func withSSHKey(t *testing.T, e *testEnv) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	keyPEM, err := ssh.MarshalPrivateKey(priv, "")
	must(t, err)
	dir := filepath.Join(e.home, ".ssh")
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "id_ed25519"), pem.EncodeToMemory(keyPEM), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "known_hosts"), nil, 0o600))
}

// TestSessionRemoteGivesUpOnASilentRemote: a remote that accepts the connection and never
// answers (git://, http://, ssh) fails every session operation once a limit has passed, with
// the limit named, instead of holding the caller.
func TestSessionRemoteGivesUpOnASilentRemote(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	withSSHKey(t, e)
	dir, remotes := silentRemotes(t, e, silentServer(t, nil))
	limits := Limits{Connect: 300 * time.Millisecond, Idle: 300 * time.Millisecond}
	for _, remote := range remotes {
		sr, err := OpenSessionRemote(dir, e.gitops(), remote, limits)
		if err != nil {
			t.Fatal(err)
		}
		err = returns(t, remote+": push", func() error {
			_, err := sr.PushSession(context.Background(), SessionPush{ID: "session-1700000000000-abcdef", Record: []byte("{}\n"), Retries: 3})
			return err
		})
		checkTimeout(t, remote+": push", err)
		err = returns(t, remote+": list", func() error {
			l, err := sr.ListSessions(context.Background())
			if err == nil {
				l.Close()
			}
			return err
		})
		checkTimeout(t, remote+": list", err)
	}
}

func checkTimeout(t *testing.T, what string, err error) {
	t.Helper()
	var timeout *TimeoutError
	if !errors.As(err, &timeout) {
		t.Errorf("%s: err = %v, want a TimeoutError", what, err)
		return
	}
	if !strings.Contains(err.Error(), "300ms") {
		t.Errorf("%s: %q does not say how long it waited", what, err)
	}
}

// TestSessionRemoteIdleLimit: a remote that answers, then stops, fails at the idle limit; the
// connection was made.
func TestSessionRemoteIdleLimit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	// The first packet of an advertisement, then nothing (git://); an HTTP answer whose body
	// stops after its first packet (http://).
	gitAddr := silentServer(t, func(c net.Conn) {
		_, _ = c.Read(make([]byte, 512))
		_, _ = fmt.Fprintf(c, "%04x%s", 4+len("0000000000000000000000000000000000000000 capabilities^{}\x00report-status\n"), "0000000000000000000000000000000000000000 capabilities^{}\x00report-status\n")
	})
	httpAddr := silentServer(t, func(c net.Conn) {
		_, _ = c.Read(make([]byte, 4096))
		body := "001f# service=git-receive-pack\n0000"
		_, _ = fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-receive-pack-advertisement\r\nContent-Length: 1000\r\n\r\n%s", body)
	})
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "remote", "add", "git", "git://"+gitAddr+"/project.git")
	e.git(t, dir, "remote", "add", "http", "http://"+httpAddr+"/project.git")
	for _, remote := range []string{"git", "http"} {
		sr, err := OpenSessionRemote(dir, e.gitops(), remote, Limits{Connect: time.Hour, Idle: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		err = returns(t, remote, func() error {
			_, err := sr.PushSession(context.Background(), SessionPush{ID: "session-1700000000000-abcdef", Record: []byte("{}\n")})
			return err
		})
		var timeout *TimeoutError
		if !errors.As(err, &timeout) || timeout.Connect {
			t.Errorf("%s: err = %v, want the idle limit", remote, err)
		}
	}
}

// TestSessionRemoteStopsWithItsContext: the caller's context bounds every wait, the connection
// included, however long the limits.
func TestSessionRemoteStopsWithItsContext(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	withSSHKey(t, e)
	dir, remotes := silentRemotes(t, e, silentServer(t, nil))
	for _, remote := range remotes {
		sr, err := OpenSessionRemote(dir, e.gitops(), remote, Limits{Connect: time.Hour, Idle: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		err = returns(t, remote, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := sr.PushSession(ctx, SessionPush{ID: "session-1700000000000-abcdef", Record: []byte("{}\n"), Retries: 3})
			return err
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want the context's deadline", remote, err)
		}
	}
}

// TestPushGivesUpOnASilentRemote: a git-push hook's push (go-git's push over the transports
// installed by gitops) ends with its context, the hook's timeout, on every network transport:
// go-git's own ssh transport waited on the handshake regardless.
func TestPushGivesUpOnASilentRemote(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	withSSHKey(t, e)
	dir, remotes := silentRemotes(t, e, silentServer(t, nil))
	for _, remote := range remotes {
		err := returns(t, remote, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := openRepo(t, e, dir).Push(ctx, PushOptions{Remote: remote})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
			t.Errorf("%s: err = %v, want the hook's deadline", remote, err)
		}
	}
}

// TestWireTransportAgainstGit: the pack protocol of wire.go, against the real git daemon and an
// ssh server running the real git services: a refused repository is named, an empty one listed
// as empty, and what is pushed fetches back with the git CLI.
func TestWireTransportAgainstGit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := t.TempDir()
	e.newBare(t, filepath.Join(base, "project.git"))
	port := freePort(t)
	startGitDaemon(t, e, base, port)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "remote", "add", "origin", fmt.Sprintf("git://127.0.0.1:%d/project.git", port))
	e.git(t, dir, "remote", "add", "missing", fmt.Sprintf("git://127.0.0.1:%d/missing.git", port))

	sr, err := OpenSessionRemote(dir, e.gitops(), "origin", Limits{})
	must(t, err)
	l, err := sr.ListSessions(context.Background())
	must(t, err)
	if len(l.Sessions) != 0 {
		t.Errorf("an empty repository lists %v", l.Sessions)
	}
	must(t, l.Close())
	sha := commitFile(t, e, dir, "b.txt", "b\n")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	e.git(t, "", "clone", "-q", fmt.Sprintf("git://127.0.0.1:%d/project.git", port), clone)
	if got := e.git(t, clone, "rev-parse", "HEAD"); got != sha {
		t.Errorf("clone HEAD = %s, want %s", got, sha)
	}
	// A repository the daemon does not serve.
	missing, err := OpenSessionRemote(dir, e.gitops(), "missing", Limits{})
	must(t, err)
	if _, err := missing.ListSessions(context.Background()); !errors.Is(err, transport.ErrRepositoryNotFound) {
		t.Errorf("a repository the daemon does not serve: err = %v", err)
	}
}
