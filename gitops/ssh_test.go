package gitops

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshServer is an ssh server on 127.0.0.1 that accepts one client key and runs the real
// git-receive-pack / git-upload-pack for exec requests, as a git host does.
func sshServer(t *testing.T, e *testEnv, clientKey ssh.PublicKey) (addr string, hostKey ssh.PublicKey) {
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
	l := serve(t, "tcp", "127.0.0.1:0", func(c net.Conn) { serveSSH(e, c, cfg) })
	return l.Addr().String(), hostSigner.PublicKey()
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

func serveSSH(e *testEnv, c net.Conn, cfg *ssh.ServerConfig) {
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

func TestPushOverSSH(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	clientPub, err := ssh.NewPublicKey(pub)
	must(t, err)
	addr, hostKey := sshServer(t, e, clientPub)

	bare := e.newBare(t, filepath.Join(t.TempDir(), "remote.git"))
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "remote", "add", "origin", fmt.Sprintf("ssh://git@%s%s", addr, bare))
	sshDir := filepath.Join(e.home, ".ssh")
	must(t, os.MkdirAll(sshDir, 0o700))

	// An unknown host is refused.
	keyPEM, err := ssh.MarshalPrivateKey(priv, "")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(sshDir, "id_ed25519"), pem.EncodeToMemory(keyPEM), 0o600))
	must(t, os.WriteFile(filepath.Join(sshDir, "known_hosts"), nil, 0o600))
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{}); err == nil || !strings.Contains(err.Error(), "key is unknown") {
		t.Fatalf("push to a host missing from known_hosts: err = %v", err)
	}

	// With the host known, the key in ~/.ssh authenticates.
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostKey)
	must(t, os.WriteFile(filepath.Join(sshDir, "known_hosts"), []byte(line+"\n"), 0o600))
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
