package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/utils/ioutil"
	"golang.org/x/crypto/ssh"
)

// wireTransport is the git pack protocol (git-upload-pack, git-receive-pack) over a stream of
// ours, bounded by its Limits: a git:// connection, or an ssh session over one. go-git's own
// git:// and ssh transports dial for themselves, so that nothing bounds their connection, their
// ssh handshake, nor a read their context does not reach.
//
// A session connects on its first use, under the context of that call (go-git opens sessions
// without one), so that the caller's deadline bounds the connection too.
type wireTransport struct {
	limits Limits
}

// NewUploadPackSession implements transport.Transport.
func (t *wireTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	return t.session(transport.UploadPackServiceName, ep, auth)
}

// NewReceivePackSession implements transport.Transport.
func (t *wireTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	return t.session(transport.ReceivePackServiceName, ep, auth)
}

func (t *wireTransport) session(service string, ep *transport.Endpoint, auth transport.AuthMethod) (*wireSession, error) {
	switch ep.Protocol {
	case "git":
		if auth != nil {
			return nil, transport.ErrInvalidAuthMethod // the git protocol has no authentication
		}
	case "ssh":
		if _, ok := auth.(gitssh.AuthMethod); !ok {
			return nil, fmt.Errorf("ssh: no credentials: %w", transport.ErrInvalidAuthMethod)
		}
	default:
		return nil, fmt.Errorf("unsupported scheme %q", ep.Protocol)
	}
	return &wireSession{limits: t.limits, service: service, ep: ep, auth: auth}, nil
}

// wireSession is one git service at the remote end of a stream.
type wireSession struct {
	limits  Limits
	service string
	ep      *transport.Endpoint
	auth    transport.AuthMethod

	conn    *idleConn    // nil until connected
	r       io.Reader    // the service's output
	w       io.Writer    // its input
	closeW  func() error // ends its input (ssh); nil for git://, whose requests say where they end
	stderr  *stderrLines // what the service wrote on its stderr (ssh); nil for git://
	release func() error // closes what connect opened

	advRefs  *packp.AdvRefs
	packRun  bool // an upload or receive request was sent
	finished bool
	closed   bool
}

// connect opens the stream and starts the service, within the connect limit and ctx.
func (s *wireSession) connect(ctx context.Context) error {
	switch {
	case s.closed:
		return errors.New("the session with the remote is closed")
	case s.conn != nil:
		return nil
	}
	start := time.Now()
	port := s.ep.Port
	if port <= 0 {
		port = 9418
		if s.ep.Protocol == "ssh" {
			port = 22
		}
	}
	addr := net.JoinHostPort(s.ep.Host, strconv.Itoa(port))
	if s.ep.Protocol == "ssh" {
		addr = sshAddr(s.ep, addr)
	}
	conn, err := s.limits.dial(ctx, addr)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if s.ep.Protocol == "git" {
		host := s.ep.Host
		if s.ep.Port > 0 && s.ep.Port != 9418 {
			host = net.JoinHostPort(s.ep.Host, strconv.Itoa(s.ep.Port))
		}
		req := packp.GitProtoRequest{RequestCommand: s.service, Pathname: s.ep.Path, Host: host}
		if err := req.Encode(conn); err != nil {
			conn.Close()
			return ctxErr(ctx, err)
		}
		s.conn, s.r, s.w, s.release = conn, conn, conn, conn.Close
		return nil
	}
	conn.connecting(start.Add(s.limits.connect()), s.limits.connect())
	if err := s.startSSH(conn, addr); err != nil {
		conn.Close()
		return ctxErr(ctx, err)
	}
	conn.connected()
	s.conn = conn
	return nil
}

// startSSH runs the service in an ssh session over conn, as go-git's ssh transport does.
func (s *wireSession) startSSH(conn net.Conn, addr string) error {
	cfg, err := s.auth.(gitssh.AuthMethod).ClientConfig()
	if err != nil {
		return err
	}
	cc, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		return err
	}
	cl := ssh.NewClient(cc, chans, reqs)
	sess, err := cl.NewSession()
	if err != nil {
		cl.Close()
		return err
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		cl.Close()
		return err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		cl.Close()
		return err
	}
	stderr, err := sess.StderrPipe()
	if err != nil {
		cl.Close()
		return err
	}
	s.stderr = readStderr(stderr)
	if err := sess.Start(sshCommand(s.service, s.ep.Path)); err != nil {
		cl.Close()
		return err
	}
	s.r, s.w, s.closeW = stdout, stdin, stdin.Close
	s.release = func() error {
		_ = sess.Close()
		if err := cl.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	}
	return nil
}

// sshAddr is where an ssh endpoint is: the HostName and Port ~/.ssh/config gives its host, as
// go-git's ssh transport reads them, else addr.
func sshAddr(ep *transport.Endpoint, addr string) string {
	cfg := gitssh.DefaultSSHConfig
	if cfg == nil {
		return addr
	}
	host := cfg.Get(ep.Host, "Hostname")
	if host == "" {
		return addr
	}
	port := ep.Port
	if p, err := strconv.Atoi(cfg.Get(ep.Host, "Port")); err == nil {
		port = p
	}
	if port <= 0 {
		port = 22
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// sshCommand is the command line of service for path, the path quoted as git's sq_quote_buf
// quotes it (' and ! closed, escaped and reopened).
func sshCommand(service, path string) string {
	var b strings.Builder
	b.WriteString(service + " '")
	for _, c := range []byte(path) {
		if c == '\'' || c == '!' {
			b.WriteString(`'\` + string(c) + `'`)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('\'')
	return b.String()
}

// bind makes ctx's end close the connection, so that every wait of the session ends with it;
// the returned func undoes it.
func (s *wireSession) bind(ctx context.Context) func() {
	conn := s.conn
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	return func() { stop() }
}

// ctxErr is err, or the context's error when the context ended the wait.
func ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// AdvertisedReferences implements transport.Session.
func (s *wireSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

// AdvertisedReferencesContext implements transport.Session: the refs the service advertises
// first, read once.
func (s *wireSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	if s.advRefs != nil {
		return s.advRefs, nil
	}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	defer s.bind(ctx)()
	ar := packp.NewAdvRefs()
	if err := ar.Decode(s.r); err != nil {
		if err := s.advRefsError(ctx, err); err != nil {
			return nil, err
		}
	}
	if s.service == transport.UploadPackServiceName && ar.IsEmpty() {
		return nil, transport.ErrEmptyRemoteRepository
	}
	transport.FilterUnsupportedCapabilities(ar.Capabilities)
	s.advRefs = ar
	return ar, nil
}

// advRefsError says why the advertisement could not be read, as go-git's transports say it;
// nil for the empty advertisement of an empty repository to push to.
func (s *wireSession) advRefsError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var timeout *TimeoutError
	var errLine *pktline.ErrorLine
	var unexpected *packp.ErrUnexpectedData
	switch {
	case errors.As(err, &timeout):
		return timeout
	case errors.As(err, &errLine):
		if repoNotFound(errLine.Text) {
			return transport.ErrRepositoryNotFound
		}
		return errLine
	case errors.Is(err, packp.ErrEmptyInput):
		// The remote hung up without a word on its output: a git daemon does so for a
		// repository it does not serve, an ssh server says why on stderr.
		s.finished = true
		if line := s.stderr.first(ctx); line != "" {
			if repoNotFound(line) {
				return transport.ErrRepositoryNotFound
			}
			return fmt.Errorf("the remote refused: %s", line)
		}
		return fmt.Errorf("the remote hung up before advertising its refs (no such repository?): %w", io.ErrUnexpectedEOF)
	case errors.Is(err, packp.ErrEmptyAdvRefs):
		if s.service == transport.ReceivePackServiceName {
			return nil // an empty repository, which can be pushed to
		}
		if err := s.finish(); err != nil {
			return err
		}
		return transport.ErrEmptyRemoteRepository
	case errors.As(err, &unexpected) && repoNotFound(string(unexpected.Data)):
		return transport.ErrRepositoryNotFound
	}
	return err
}

// repoNotFound reports whether a remote's message says the repository does not exist (or may
// not be seen), in the words of the hosts go-git knows.
func repoNotFound(msg string) bool {
	for _, s := range []string{
		"Repository not found.", "repository does not exist.", "does not appear to be a git repository",
		"no such repository", "access denied", "Repository does not exist or you do not have access",
		"The project you were looking for could not be found",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// UploadPack implements transport.UploadPackSession: it asks for the objects of req and returns
// the answer, the pack to read; closing it closes the session. ctx bounds the reading too.
func (s *wireSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if req.IsEmpty() {
		if err := s.finish(); err != nil {
			return nil, err
		}
		return nil, transport.ErrEmptyUploadPackRequest
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.packRun = true
	stop := s.bind(ctx)
	fail := func(what string, err error) (*packp.UploadPackResponse, error) {
		stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := req.UploadRequest.Encode(s.w); err != nil {
		return fail("send the upload request", err)
	}
	if err := req.UploadHaves.Encode(s.w, true); err != nil {
		return fail("send the haves", err)
	}
	if err := pktline.NewEncoder(s.w).Encodef("done\n"); err != nil {
		return fail("send done", err)
	}
	if s.closeW != nil {
		if err := s.closeW(); err != nil {
			return fail("close the request", err)
		}
	}
	r, err := ioutil.NonEmptyReader(s.r)
	if errors.Is(err, ioutil.ErrEmptyReader) {
		stop()
		return nil, transport.ErrEmptyUploadPackRequest
	}
	if err != nil {
		return fail("read the upload-pack response", err)
	}
	rc := &responseReader{r: r, ctx: ctx, s: s, stop: stop}
	res := packp.NewUploadPackResponse(req)
	if err := res.Decode(rc); err != nil {
		rc.Close()
		return nil, fmt.Errorf("decode the upload-pack response: %w", ctxErr(ctx, err))
	}
	return res, nil
}

// responseReader is the answer to an upload request, read under its context; closing it ends the
// session.
type responseReader struct {
	r    io.Reader
	ctx  context.Context
	s    *wireSession
	stop func()
}

func (r *responseReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		err = ctxErr(r.ctx, err)
	}
	return n, err
}

func (r *responseReader) Close() error {
	r.stop()
	return r.s.Close()
}

// ReceivePack implements transport.ReceivePackSession: it sends the ref updates and the pack of
// req and reads the remote's report.
func (s *wireSession) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.packRun = true
	defer s.bind(ctx)()
	if err := req.Encode(s.w); err != nil {
		return nil, ctxErr(ctx, err)
	}
	if s.closeW != nil {
		if err := s.closeW(); err != nil {
			return nil, ctxErr(ctx, err)
		}
	}
	if !req.Capabilities.Supports(capability.ReportStatus) {
		return nil, s.Close() // nothing more to hear
	}
	var r io.Reader = s.r
	var d *sideband.Demuxer
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		d = sideband.NewDemuxer(sideband.Sideband64k, r)
	case req.Capabilities.Supports(capability.Sideband):
		d = sideband.NewDemuxer(sideband.Sideband, r)
	}
	if d != nil {
		d.Progress = req.Progress
		r = d
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		return nil, ctxErr(ctx, err)
	}
	if err := report.Error(); err != nil {
		s.Close()
		return report, err
	}
	return report, s.Close()
}

// finish ends the conversation: a service that was sent no request is told there is none (a
// flush), as git does.
func (s *wireSession) finish() error {
	if s.finished || s.conn == nil {
		return nil
	}
	s.finished = true
	if !s.packRun {
		_, err := s.w.Write(pktline.FlushPkt)
		return err
	}
	return nil
}

// Close implements io.Closer: it ends the conversation and closes the stream.
func (s *wireSession) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.conn == nil {
		return nil
	}
	_ = s.finish() // a remote gone already needs no goodbye
	return s.release()
}

// stderrLines is the first lines a service wrote on its stderr, read as it writes them.
type stderrLines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

// stderrMax is how much of a service's stderr is kept.
const stderrMax = 4 << 10

func readStderr(r io.Reader) *stderrLines {
	s := &stderrLines{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		b := make([]byte, 1024)
		for {
			n, err := r.Read(b)
			s.mu.Lock()
			if room := stderrMax - s.buf.Len(); room > 0 {
				s.buf.Write(b[:min(n, room)])
			}
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// progressLine is a line of a remote's progress, not its error (go-git's stdErrSkipPattern).
var progressLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^remote:( =*)?$`) })

// first is the first line of the service's stderr that says something, once the service has
// ended it (or ctx has); "" when it said nothing.
func (s *stderrLines) first(ctx context.Context) string {
	if s == nil {
		return ""
	}
	select {
	case <-s.done:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range strings.Split(s.buf.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" && !progressLine().MatchString(line) {
			return line
		}
	}
	return ""
}
