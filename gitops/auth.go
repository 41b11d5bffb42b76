package gitops

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// auth picks the credentials for a remote URL and returns the secrets that must never be shown.
//
//   - https (and http to a loopback address): GITHUB_TOKEN, else GH_TOKEN, as the password of
//     x-access-token, unless the URL carries its own credentials. The token is not sent over
//     plain http to other hosts, nor to hosts that are not GitHub's (see githubHost).
//   - ssh: the keys of the ssh agent at SSH_AUTH_SOCK and the unencrypted ~/.ssh/id_* keys, the
//     host checked against ~/.ssh/known_hosts (or SSH_KNOWN_HOSTS).
func (r *Repo) auth(rawURL string) (transport.AuthMethod, []string, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, nil, urlError(rawURL, err)
	}
	switch ep.Protocol {
	case "https", "http":
		token := strings.TrimSpace(r.env.getenv("GITHUB_TOKEN"))
		if token == "" {
			token = strings.TrimSpace(r.env.getenv("GH_TOKEN"))
		}
		if token == "" || ep.User != "" || ep.Password != "" {
			return nil, nil, nil
		}
		if ep.Protocol == "http" && !isLoopback(ep.Host) || !r.githubHost(ep.Host) {
			return nil, []string{token}, nil
		}
		return &githttp.BasicAuth{Username: "x-access-token", Password: token}, []string{token}, nil
	case "ssh":
		return r.sshAuth(ep)
	}
	return nil, nil, nil
}

// githubHost reports whether host is GitHub's, the only kind the tokens are for: github.com, a
// GitHub Enterprise Cloud host (*.ghe.com), the server of $GITHUB_SERVER_URL (Actions, also on
// GitHub Enterprise Server) or $GH_HOST, or a loopback address (a local test server).
func (r *Repo) githubHost(host string) bool {
	host = strings.ToLower(host)
	if host == "github.com" || strings.HasSuffix(host, ".ghe.com") || isLoopback(host) {
		return true
	}
	if u, err := url.Parse(r.env.getenv("GITHUB_SERVER_URL")); err == nil && u.Host != "" && strings.EqualFold(u.Hostname(), host) {
		return true
	}
	return host != "" && strings.EqualFold(r.env.getenv("GH_HOST"), host)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (r *Repo) sshAuth(ep *transport.Endpoint) (transport.AuthMethod, []string, error) {
	user := ep.User
	if user == "" {
		user = "git"
	}
	home := r.env.getenv("HOME")
	var signers []ssh.Signer
	if sock := r.env.getenv("SSH_AUTH_SOCK"); sock != "" {
		if conn, err := net.Dial("unix", sock); err == nil {
			if s, err := agent.NewClient(conn).Signers(); err == nil {
				signers = append(signers, s...)
			}
		}
	}
	if home != "" {
		for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			pem, err := os.ReadFile(filepath.Join(home, ".ssh", name))
			if err != nil {
				continue
			}
			s, err := ssh.ParsePrivateKey(pem)
			var missing *ssh.PassphraseMissingError
			if errors.As(err, &missing) {
				continue // encrypted: only usable through the agent
			}
			if err == nil {
				signers = append(signers, s)
			}
		}
	}
	if len(signers) == 0 {
		return nil, nil, errors.New("no ssh credentials: start an ssh agent (SSH_AUTH_SOCK) or add a key without passphrase in ~/.ssh")
	}
	var files []string
	if kh := r.env.getenv("SSH_KNOWN_HOSTS"); kh != "" {
		files = filepath.SplitList(kh)
	} else if home != "" {
		files = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	hostKeys, err := gitssh.NewKnownHostsCallback(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("ssh known hosts (%v): %w", files, err)
	}
	a := &gitssh.PublicKeysCallback{User: user, Callback: func() ([]ssh.Signer, error) { return signers, nil }}
	a.HostKeyCallback = hostKeys
	return a, nil, nil
}

// localScheme is the go-git protocol name under which local repositories are served in-process.
const localScheme = "gitops+file"
