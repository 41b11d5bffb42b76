package gitops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/server"

	"github.com/autoagent/agent-hooks/hooks"
)

// Limits bound every wait on a remote's network connection, whatever its transport (git://,
// http(s)://, ssh): a remote that accepts the connection and never answers, or stops answering
// half way, cannot hold agent-hooks. A zero field is its default in hooks' table of durations.
// A caller's context bounds the whole operation besides (a hook's timeout, the push at the end
// of a session): the connection is made, and every wait made, under it.
type Limits struct {
	// Connect bounds establishing a connection: the TCP connection, and the TLS or ssh
	// handshake with the start of the remote's git service.
	Connect time.Duration
	// Idle bounds every wait once connected: the longest the remote may go without sending or
	// taking a byte.
	Idle time.Duration
}

func (l Limits) connect() time.Duration {
	if l.Connect > 0 {
		return l.Connect
	}
	return hooks.DefaultRemoteConnectTimeout
}

func (l Limits) idle() time.Duration {
	if l.Idle > 0 {
		return l.Idle
	}
	return hooks.DefaultRemoteIdleTimeout
}

// TimeoutError is a remote that did not answer within one of the Limits.
type TimeoutError struct {
	Addr string // host:port
	// Connect is true for the connect limit, false for the idle one.
	Connect bool
	Limit   time.Duration
}

func (e *TimeoutError) Error() string {
	if e.Connect {
		return fmt.Sprintf("connect to %s: no connection within %s", e.Addr, hooks.RoundDuration(e.Limit))
	}
	return fmt.Sprintf("%s stopped answering: nothing received or sent for %s", e.Addr, hooks.RoundDuration(e.Limit))
}

// Timeout implements net.Error.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary implements net.Error: a remote that kept silent that long is not retried.
func (e *TimeoutError) Temporary() bool { return false }

// Unwrap makes a TimeoutError an os.ErrDeadlineExceeded, as the deadline it is.
func (e *TimeoutError) Unwrap() error { return os.ErrDeadlineExceeded }

// dial connects to addr (host:port) within the connect limit and returns the connection bounded
// by the idle limit (idleConn). ctx bounds the dial too.
func (l Limits) dial(ctx context.Context, addr string) (*idleConn, error) {
	d := net.Dialer{Timeout: l.connect(), KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect to %s: %w", addr, ctx.Err())
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, &TimeoutError{Addr: addr, Connect: true, Limit: l.connect()}
		}
		return nil, err
	}
	return &idleConn{Conn: c, addr: addr, idle: l.idle()}, nil
}

// idleConn is a connection on which no read or write waits longer than the idle limit for the
// remote to send or take a byte; any progress, either way, gives every pending wait the limit
// again (so that a long upload does not starve a read waiting for the answer). While connecting
// (handshake), no wait goes past the connect limit's deadline either.
type idleConn struct {
	net.Conn
	addr string
	idle time.Duration

	mu         sync.Mutex
	handshake  time.Time     // the connect limit's deadline while connecting, else zero
	connectFor time.Duration // the connect limit, for its error
}

// maxWrite is the most written at once, so that a large write made slowly but steadily is
// progress, not one wait longer than the idle limit.
const maxWrite = 64 << 10

// connecting makes the waits until connected stop at deadline, the connect limit of d.
func (c *idleConn) connecting(deadline time.Time, d time.Duration) {
	c.mu.Lock()
	c.handshake, c.connectFor = deadline, d
	c.mu.Unlock()
}

// connected ends the handshake: from now on only the idle limit applies.
func (c *idleConn) connected() {
	c.mu.Lock()
	c.handshake = time.Time{}
	c.mu.Unlock()
	_ = c.Conn.SetDeadline(time.Now().Add(c.idle))
}

func (c *idleConn) extend() {
	d := time.Now().Add(c.idle)
	c.mu.Lock()
	if !c.handshake.IsZero() && c.handshake.Before(d) {
		d = c.handshake
	}
	c.mu.Unlock()
	_ = c.Conn.SetDeadline(d)
}

func (c *idleConn) Read(b []byte) (int, error) {
	c.extend()
	n, err := c.Conn.Read(b)
	return n, c.explain(err)
}

func (c *idleConn) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		c.extend()
		n, err := c.Conn.Write(b[:min(len(b), maxWrite)])
		written += n
		if err != nil {
			return written, c.explain(err)
		}
		b = b[n:]
	}
	return written, nil
}

// explain turns a deadline that passed into the limit it was.
func (c *idleConn) explain(err error) error {
	if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.handshake.IsZero() && !time.Now().Before(c.handshake) {
		return &TimeoutError{Addr: c.addr, Connect: true, Limit: c.connectFor}
	}
	return &TimeoutError{Addr: c.addr, Limit: c.idle}
}

// transport is what reaches the remote of ep: go-git's in-process server for a repository on
// this machine (see local.go), else a network transport bounded by l: go-git's smart HTTP
// client over connections of ours, or the pack protocol of wire.go over a git:// connection or
// an ssh session of ours.
func (l Limits) transport(ep *transport.Endpoint) (transport.Transport, error) {
	switch ep.Protocol {
	case "http", "https":
		return l.httpTransport(), nil
	case "git", "ssh":
		return &wireTransport{limits: l}, nil
	}
	return client.NewClient(ep)
}

// httpTransport is go-git's smart HTTP client over connections dialled by l: the TCP connection
// and the TLS handshake within the connect limit, every wait after within the idle limit. The
// environment's proxy settings apply, as with go-git's own client.
func (l Limits) httpTransport() transport.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) { return l.dial(ctx, addr) }
	t.TLSHandshakeTimeout = l.connect()
	return githttp.NewClient(&http.Client{Transport: t})
}

// go-git is used by gitops alone in this program, and every remote it reaches goes through the
// transports here: go-git's file:// transport runs the git-receive-pack program, so pushes to
// local repositories go through go-git's in-process server instead, under a scheme of our own;
// its network transports are replaced by the bounded ones of Limits with their defaults (a
// git-push hook's push, a fetch of a commit made on GitHub), so that no push waits on a remote
// without bound. Registered once, before any goroutine can use the protocol table.
func init() {
	client.InstallProtocol(localScheme, server.NewClient(localLoader{}))
	var defaults Limits
	web := defaults.httpTransport()
	client.InstallProtocol("http", web)
	client.InstallProtocol("https", web)
	client.InstallProtocol("git", &wireTransport{limits: defaults})
	client.InstallProtocol("ssh", &wireTransport{limits: defaults})
}
