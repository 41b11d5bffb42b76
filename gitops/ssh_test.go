package gitops

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshServer is an ssh server on 127.0.0.1 that accepts one client key and runs the real
// git-receive-pack / git-upload-pack for exec requests, as a git host does; uploadPacks counts
// the git-upload-pack sessions it has started.
func sshServer(t *testing.T, e *testEnv, clientKey ssh.PublicKey) (addr string, hostKey ssh.PublicKey, uploadPacks *atomic.Int32) {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	must(t, err)
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(clientKey.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(hostSigner)
	uploadPacks = &atomic.Int32{}
	l := serve(t, "tcp", "127.0.0.1:0", func(c net.Conn) { serveSSH(e, c, cfg, uploadPacks) })
	return l.Addr().String(), hostSigner.PublicKey(), uploadPacks
}

// serve accepts connections on a listener closed at the end of the test, handling each in a
// goroutine of its own.
func serve(t *testing.T, network, addr string, handle func(net.Conn)) net.Listener {
	t.Helper()
	l, err := net.Listen(network, addr)
	must(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return l
}

func serveSSH(e *testEnv, c net.Conn, cfg *ssh.ServerConfig, uploadPacks *atomic.Int32) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer ch.Close()
			for req := range chReqs {
				if req.Type != "exec" || len(req.Payload) < 4 {
					_ = req.Reply(false, nil)
					continue
				}
				command := string(req.Payload[4:])
				prog, arg, _ := strings.Cut(command, " ")
				if prog != "git-receive-pack" && prog != "git-upload-pack" {
					_ = req.Reply(false, nil)
					continue
				}
				_ = req.Reply(true, nil)
				if prog == "git-upload-pack" {
					uploadPacks.Add(1)
				}
				cmd := exec.Command("git", strings.TrimPrefix(prog, "git-"), strings.Trim(arg, "'"))
				cmd.Env = e.environ()
				cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
				code := 0
				if err := cmd.Run(); err != nil {
					code = 1
				}
				status := make([]byte, 4)
				binary.BigEndian.PutUint32(status, uint32(code))
				_, _ = ch.SendRequest("exit-status", false, status)
				return
			}
		}()
	}
}

// sshOrigin is a repository whose origin is a new bare repository behind sshServer, with the
// client's key in ~/.ssh/id_ed25519 and an empty ~/.ssh/known_hosts (see knowHost).
type sshOrigin struct {
	dir, bare, addr string
	hostKey         ssh.PublicKey
	priv            ed25519.PrivateKey
	sshDir          string
	uploadPacks     *atomic.Int32
}

func newSSHOrigin(t *testing.T, e *testEnv) *sshOrigin {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	clientPub, err := ssh.NewPublicKey(pub)
	must(t, err)
	o := &sshOrigin{priv: priv, sshDir: filepath.Join(e.home, ".ssh")}
	o.addr, o.hostKey, o.uploadPacks = sshServer(t, e, clientPub)
	o.bare = e.newBare(t, filepath.Join(t.TempDir(), "remote.git"))
	o.dir = e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, o.dir, "remote", "add", "origin", fmt.Sprintf("ssh://git@%s%s", o.addr, o.bare))
	must(t, os.MkdirAll(o.sshDir, 0o700))
	keyPEM, err := ssh.MarshalPrivateKey(priv, "")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(o.sshDir, "id_ed25519"), pem.EncodeToMemory(keyPEM), 0o600))
	must(t, os.WriteFile(filepath.Join(o.sshDir, "known_hosts"), nil, 0o600))
	return o
}

// knowHost writes the server's host key to ~/.ssh/known_hosts.
func (o *sshOrigin) knowHost(t *testing.T) {
	t.Helper()
	line := knownhosts.Line([]string{knownhosts.Normalize(o.addr)}, o.hostKey)
	must(t, os.WriteFile(filepath.Join(o.sshDir, "known_hosts"), []byte(line+"\n"), 0o600))
}

func TestPushOverSSH(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	o := newSSHOrigin(t, e)
	dir, bare, sshDir, priv := o.dir, o.bare, o.sshDir, o.priv

	// An unknown host is refused.
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err == nil || !strings.Contains(err.Error(), "key is unknown") {
		t.Fatalf("push to a host missing from known_hosts: err = %v", err)
	}

	// With the host known, the key in ~/.ssh authenticates.
	o.knowHost(t)
	sha := commitFile(t, e, dir, "b.txt", "b\n")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, bare, "main", sha)

	// Without the key file, the ssh agent at SSH_AUTH_SOCK holds it.
	must(t, os.Remove(filepath.Join(sshDir, "id_ed25519")))
	keyring := agent.NewKeyring()
	must(t, keyring.Add(agent.AddedKey{PrivateKey: priv}))
	sock := filepath.Join(t.TempDir(), "agent.sock")
	serve(t, "unix", sock, func(c net.Conn) { _ = agent.ServeAgent(keyring, c); c.Close() })
	sha = commitFile(t, e, dir, "c.txt", "c\n")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err == nil || !strings.Contains(err.Error(), "no ssh credentials") {
		t.Fatalf("without key or agent: err = %v", err)
	}
	e.vars["SSH_AUTH_SOCK"] = sock
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, bare, "main", sha)
}

// TestSessionsListAndFetchOverSSHInOneUploadPack: the sessions are listed and some fetched over
// one upload-pack session (one advertisement of the remote's refs), and what is fetched reads
// back; a session the cache holds at an older commit is brought up to date.
func TestSessionsListAndFetchOverSSHInOneUploadPack(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	o := newSSHOrigin(t, e)
	o.knowHost(t)
	dir, uploadPacks := o.dir, o.uploadPacks
	sr, err := OpenSessionRemote(dir, e.gitops(), "", Limits{})
	must(t, err)

	ids := []string{"session-1700000000000-aaaaaa", "session-1700000001000-bbbbbb", "session-1700000002000-cccccc"}
	for _, id := range ids {
		pushSession(t, sr, id, []byte(`{"id":"`+id+`"}`+"\n"), trailOf(3))
	}
	cache, err := sr.OpenSessionCache(t.TempDir())
	must(t, err)
	fetch := func(want func([]RemoteSession) []RemoteSession) {
		t.Helper()
		before := uploadPacks.Load()
		listed, err := sr.ListSessions(context.Background())
		must(t, err)
		defer listed.Close()
		if len(listed.Sessions) != len(ids) {
			t.Fatalf("listed %+v, want %v", listed.Sessions, ids)
		}
		must(t, cache.Fetch(context.Background(), listed, want(listed.Sessions)))
		must(t, listed.Close())
		if n := uploadPacks.Load() - before; n != 1 {
			t.Errorf("listing and fetching started %d upload-pack sessions, want one", n)
		}
	}
	fetch(func(all []RemoteSession) []RemoteSession { return all[1:] })
	if _, err := cache.Session(ids[0]); err == nil {
		t.Errorf("%s was fetched, not asked for", ids[0])
	}
	// A later push of a session: the cache follows it.
	record := []byte(`{"id":"` + ids[1] + `","status":"completed"}` + "\n")
	trail := append(trailOf(3), trailOf(5)...)
	second := pushSession(t, sr, ids[1], record, trail)
	fetch(func([]RemoteSession) []RemoteSession { return nil }) // all of them
	for _, id := range ids {
		ps, err := cache.Session(id)
		must(t, err)
		if id == ids[1] {
			r, _ := ps.OpenTrail()
			back, err := io.ReadAll(r)
			if err != nil || ps.Commit != second.Commit || !bytes.Equal(ps.Record, record) || !bytes.Equal(back, trail) {
				t.Errorf("%s after its second push: commit %s record %q trail of %d bytes (%v); want %s, %q and %d bytes",
					id, ps.Commit, ps.Record, len(back), err, second.Commit, record, len(trail))
			}
		}
	}
	e.git(t, cache.dir, "fsck", "--strict", "--no-dangling")
}
