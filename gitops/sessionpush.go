package gitops

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/sourcegraph/conc/stream"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/lockfile"
	"github.com/autoagent/agent-hooks/gitops/internal/refs"
	"github.com/autoagent/agent-hooks/internal/redact"
)

// SessionRefPrefix is where sessions are kept on a remote: one ref per session, so that runners
// pushing their own sessions never contend for a ref.
const SessionRefPrefix = "refs/agent-hooks/sessions/"

// The layout of a pushed session: the ref points at a commit (the previous push of the same
// session, if any, is its parent) whose tree holds
//
//	session.json        the session record
//	events/000001.jsonl the audit trail, cut at line ends into chunks of about trailChunk bytes
//	events/000002.jsonl (so that no blob passes a host's file size limit, and chunks are
//	…                   compressed in parallel); read in name order they are the trail.
const (
	sessionRecordName = "session.json"
	sessionEventsDir  = "events"
	trailChunk        = 8 << 20
)

// SessionRemote is a remote of a workspace's repository, for pushing and reading sessions. It
// uses the remote's URL and the credentials git-push would use (see auth).
type SessionRemote struct {
	Name    string
	URL     string // with any credentials removed, for messages
	url     string // what go-git connects to
	ep      *transport.Endpoint
	tr      transport.Transport // bounded by the limits it was opened with
	auth    transport.AuthMethod
	secrets []string
}

// OpenSessionRemote finds remote (default origin) of the repository holding dir; every wait on
// it is bounded by limits (and by the context of each call). Nothing is sent to the remote yet.
func OpenSessionRemote(dir string, env Env, remote string, limits Limits) (*SessionRemote, error) {
	if remote == "" {
		remote = "origin"
	}
	r, err := Open(dir, env)
	if err != nil {
		return nil, err
	}
	rem, err := r.repo.Remote(remote)
	if err != nil {
		return nil, fmt.Errorf("no remote named %q in %s", remote, r.Root)
	}
	raw := r.cfg.Get("remote", remote, "pushurl")
	if raw == "" && len(rem.Config().URLs) > 0 {
		raw = rem.Config().URLs[0]
	}
	if raw == "" {
		return nil, fmt.Errorf("remote %s has no URL", remote)
	}
	u, err := r.transportURL(raw, "")
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", remote, err)
	}
	auth, secrets, err := r.auth(u)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", remote, err)
	}
	if pu, err := url.Parse(raw); err == nil && pu.User != nil {
		if p, ok := pu.User.Password(); ok && p != "" {
			secrets = append(secrets, p)
		}
	}
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", remote, urlError(u, err))
	}
	tr, err := limits.transport(ep)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", remote, err)
	}
	return &SessionRemote{Name: remote, URL: redact.URL(raw), url: u, ep: ep, tr: tr, auth: auth, secrets: secrets}, nil
}

// errorf wraps a failure talking to the remote, without its credentials; the failure stays
// reachable with errors.Is and errors.As (a TimeoutError, a context's end).
func (sr *SessionRemote) errorf(format string, err error) error {
	return &remoteError{msg: fmt.Sprintf(format, sr.Name) + ": " + redact.String(err.Error(), sr.secrets), err: err}
}

// remoteError is a failure talking to a remote, its message without credentials.
type remoteError struct {
	msg string
	err error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.err }

// TrailSnapshot is the audit trail to push: Size bytes of R, from the start, which must end at a
// line end (see SnapshotSize).
type TrailSnapshot struct {
	R    io.ReaderAt
	Size int64
}

// SessionPush is one session to push.
type SessionPush struct {
	ID     string // the session id: the ref is SessionRefPrefix + ID
	Record []byte // session.json
	Trail  TrailSnapshot
	// Message is the commit message ("" for "agent-hooks session <id>").
	Message string
	// Time is the commit's time (zero: now).
	Time time.Time
	// Retries is how many times a push that lost a race for the ref (another push of the same
	// session) or met a transient network failure is tried again.
	Retries int
}

// SessionPushResult is what a push did.
type SessionPushResult struct {
	Ref      string `json:"ref"`
	Commit   string `json:"commit"`
	Parent   string `json:"parent,omitempty"` // the previous push of the session, "" for the first
	Chunks   int    `json:"chunks"`
	Attempts int    `json:"attempts"`
}

// PushSession writes a session to its ref on the remote: a commit of the record and the trail,
// on top of the ref's previous commit. It streams: the trail is read twice (once to hash its
// chunks, since the ref update names the commit before the pack is sent; once to compress them,
// two at a time, straight into the pack), and at most a few chunks are in memory at once.
func (sr *SessionRemote) PushSession(ctx context.Context, p SessionPush) (*SessionPushResult, error) {
	if p.ID == "" || strings.ContainsAny(p.ID, "/ \t\n:~^?*[\\") {
		return nil, fmt.Errorf("push session: invalid id %q", p.ID)
	}
	ref := plumbing.ReferenceName(SessionRefPrefix + p.ID)
	chunks, err := hashChunks(p.Trail)
	if err != nil {
		return nil, fmt.Errorf("push session %s: read the audit trail: %w", p.ID, err)
	}
	res := &SessionPushResult{Ref: ref.String(), Chunks: len(chunks)}
	for {
		res.Attempts++
		err = sr.pushOnce(ctx, p, ref, chunks, res)
		if err == nil || ctx.Err() != nil || res.Attempts > p.Retries || !(errors.Is(err, errSessionRefMoved) || refLocked(err) || transient(err)) {
			break
		}
	}
	if err != nil {
		return res, sr.errorf("push session to %s", err)
	}
	return res, nil
}

// objectsOnTop encodes the push's small objects (sessionObjects) for a commit on top of the
// session's previous one, old (zero: none), and records the commit and its parent in res.
func (res *SessionPushResult) objectsOnTop(p SessionPush, chunks []chunk, old plumbing.Hash) ([]plumbing.EncodedObject, plumbing.Hash, error) {
	objs, commit, err := sessionObjects(p, chunks, old)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	res.Commit, res.Parent = commit.String(), ""
	if !old.IsZero() {
		res.Parent = old.String()
	}
	return objs, commit, nil
}

var errSessionRefMoved = errors.New("the session's ref moved on the remote while pushing (another push of the same session)")

func (sr *SessionRemote) pushOnce(ctx context.Context, p SessionPush, ref plumbing.ReferenceName, chunks []chunk, res *SessionPushResult) error {
	if gitDir, ok := localPath(sr.url); ok {
		return pushLocal(ctx, gitDir, p, ref, chunks, res)
	}
	sess, err := sr.receivePack()
	if err != nil {
		return err
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return err
	}
	var old plumbing.Hash
	if ar != nil {
		if refs, err := ar.AllReferences(); err == nil {
			if r, ok := refs[ref]; ok {
				old = r.Hash()
			}
		}
	}
	objs, commit, err := res.objectsOnTop(p, chunks, old)
	if err != nil {
		return err
	}
	req := packp.NewReferenceUpdateRequest()
	if ar != nil {
		req = packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	}
	req.Commands = []*packp.Command{{Name: ref, Old: old, New: commit}}
	pr, pw := io.Pipe()
	req.Packfile = pr
	done := make(chan error, 1)
	go func() {
		ps := gitobj.NewPackStream(pw, uint32(len(objs)+len(chunks)))
		err := writePack(ctx, ps, objs, p.Trail.R, chunks)
		if err == nil {
			_, err = ps.Close()
		}
		pw.CloseWithError(err)
		done <- err
	}()
	rs, err := sess.ReceivePack(ctx, req)
	pr.Close()
	if perr := <-done; err == nil && perr != nil && !errors.Is(perr, io.ErrClosedPipe) {
		err = perr
	}
	if err == nil && rs != nil {
		err = rs.Error()
	}
	if err != nil && ctx.Err() == nil {
		// Another push of the session may have moved the ref between our look and our update:
		// the remote refuses an update whose old value no longer matches. Then we go again, on
		// top of it.
		if now, lerr := sr.refHash(ctx, ref); lerr == nil && now != old {
			return errSessionRefMoved
		}
	}
	return err
}

// localPath is the git directory of a remote that is a repository on this machine (see
// transportURL).
func localPath(u string) (string, bool) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != localScheme {
		return "", false
	}
	return filepath.FromSlash(pu.Path), true
}

// pushLocal does a push to the repository at gitDir on this machine the way git-receive-pack
// ends one, without the pack protocol in between (whose receiving side would inflate every
// object again to learn the ids we already know): the objects the remote lacks go into a pack
// written into its objects/pack with its index, and the ref is then moved from the value read
// at the start, under its lock (errSessionRefMoved when another push moved it meanwhile).
// Objects of the previous push (the trail's earlier chunks, unchanged as the trail grows) are
// not written again: the new commit's parent holds them.
func pushLocal(ctx context.Context, gitDir string, p SessionPush, ref plumbing.ReferenceName, chunks []chunk, res *SessionPushResult) error {
	dirs := refs.Dirs{GitDir: gitDir, CommonDir: refs.CommonDirOf(gitDir)}
	objects := filepath.Join(dirs.CommonDir, "objects")
	if _, err := os.Stat(objects); err != nil {
		return transport.ErrRepositoryNotFound
	}
	sto := filesystem.NewStorage(osfs.New(dirs.CommonDir), cache.NewObjectLRU(0))
	defer sto.Close()
	var old plumbing.Hash
	switch cur, err := sto.Reference(ref); {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
	case err != nil:
		return fmt.Errorf("read %s: %w", ref, err)
	default:
		old = cur.Hash()
	}
	objs, commit, err := res.objectsOnTop(p, chunks, old)
	if err != nil {
		return err
	}
	have, err := pushedObjects(objects, old)
	if err != nil {
		return err
	}
	objs = slices.DeleteFunc(objs, func(o plumbing.EncodedObject) bool { return have[o.Hash()] })
	chunks = slices.DeleteFunc(slices.Clone(chunks), func(c chunk) bool { return have[c.hash] })
	if n := len(objs) + len(chunks); n > 0 {
		pf, err := gitobj.CreatePack(objects, uint32(n))
		if err != nil {
			return err
		}
		if err := writePack(ctx, pf, objs, p.Trail.R, chunks); err != nil {
			pf.Abort()
			return err
		}
		if _, err := pf.Install(); err != nil {
			return err
		}
	}
	// A lock held by another push of the session is waited for a little, as git waits
	// (core.filesRefLockTimeout, 100 ms): that push is about to move the ref, and then we go
	// again on top of it. A lock held longer is git's error.
	update := refs.Update{Dirs: dirs, Refs: sto, Name: ref, Old: old, New: commit}
	for deadline := time.Now().Add(refLockTimeout); ; {
		err = update.Apply()
		var locked *lockfile.LockedError
		if !errors.As(err, &locked) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if errors.Is(err, refs.ErrMoved) {
		return errSessionRefMoved
	}
	return err
}

// refLockTimeout is how long a ref's lock held by someone else is waited for: git's default
// core.filesRefLockTimeout.
const refLockTimeout = 100 * time.Millisecond

// refLocked reports whether err is a push to a repository on this machine that found the
// session's ref locked for longer than refLockTimeout. Another push of the session holds it, or a
// crashed one left it: either way the push goes again, as after a lost race for the ref, and a
// lock that is still there after the last attempt is git's error. (On a loaded machine another
// push can hold the lock past 100 ms: syncing its ref is slow then.)
func refLocked(err error) bool {
	var locked *lockfile.LockedError
	return errors.As(err, &locked)
}

// pushedObjects is what the previous push of a session, commit (zero: none), holds: its commit,
// trees and blobs, read from the objects directory objects.
func pushedObjects(objects string, commit plumbing.Hash) (map[plumbing.Hash]bool, error) {
	have := map[plumbing.Hash]bool{}
	if commit.IsZero() {
		return have, nil
	}
	r := gitobj.NewReader(objects)
	defer r.Close()
	tree := func(h plumbing.Hash) (*object.Tree, error) {
		o, err := r.Read(h)
		if err != nil {
			return nil, err
		}
		t := &object.Tree{}
		return t, t.Decode(o)
	}
	o, err := r.Read(commit)
	if err != nil {
		return nil, fmt.Errorf("read the previous push %s: %w", commit, err)
	}
	c := &object.Commit{}
	if err := c.Decode(o); err != nil {
		return nil, fmt.Errorf("read the previous push %s: %w", commit, err)
	}
	have[commit] = true
	pending := []plumbing.Hash{c.TreeHash}
	for len(pending) > 0 {
		h := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		t, err := tree(h)
		if err != nil {
			return nil, fmt.Errorf("read the previous push %s: tree %s: %w", commit, h, err)
		}
		have[h] = true
		for _, e := range t.Entries {
			switch {
			case e.Mode == filemode.Dir:
				pending = append(pending, e.Hash)
			case e.Mode.IsFile():
				have[e.Hash] = true
			}
		}
	}
	return have, nil
}

// refHash is what ref points at on the remote now (zero when it does not exist).
func (sr *SessionRemote) refHash(ctx context.Context, ref plumbing.ReferenceName) (plumbing.Hash, error) {
	refs, err := sr.refs(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return refs[ref], nil
}

func (sr *SessionRemote) receivePack() (transport.ReceivePackSession, error) {
	return sr.tr.NewReceivePackSession(sr.ep, sr.auth)
}

// chunk is a piece of the trail, from off to off+size, ending at a line end (but the last,
// which ends where the snapshot does).
type chunk struct {
	off, size int64
	hash      plumbing.Hash // its blob id
}

// hashChunks cuts the trail at line ends into chunks of about trailChunk bytes and computes
// their blob ids, two chunks at a time.
func hashChunks(t TrailSnapshot) ([]chunk, error) {
	var chunks []chunk
	for off := int64(0); off < t.Size; {
		end := min(off+trailChunk, t.Size)
		if end < t.Size {
			cut, err := lineEndBefore(t.R, off, end)
			if err != nil {
				return nil, err
			}
			end = cut
		}
		chunks = append(chunks, chunk{off: off, size: end - off})
		off = end
	}
	s := stream.New().WithMaxGoroutines(2)
	var firstErr error
	for i := range chunks {
		s.Go(func() stream.Callback {
			h, err := blobID(io.NewSectionReader(t.R, chunks[i].off, chunks[i].size), chunks[i].size)
			return func() {
				chunks[i].hash = h
				if err != nil && firstErr == nil {
					firstErr = err
				}
			}
		})
	}
	s.Wait()
	return chunks, firstErr
}

// lineEndBefore is the offset just after the last '\n' in r[off:end] (or, for a line longer
// than that, after the next '\n' past end).
func lineEndBefore(r io.ReaderAt, off, end int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for at := end; at > off; {
		n := min(int64(len(buf)), at-off)
		at -= n
		if _, err := r.ReadAt(buf[:n], at); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, nil
		}
	}
	for at := end; ; at += int64(len(buf)) { // one line longer than a chunk: cut after it
		n, err := r.ReadAt(buf, at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, nil
		}
		if err != nil {
			return at + int64(n), nil
		}
	}
}

// blobID is git's id of a blob of size bytes read from r.
func blobID(r io.Reader, size int64) (plumbing.Hash, error) {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", size)
	if n, err := io.Copy(h, r); err != nil || n != size {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return plumbing.ZeroHash, err
	}
	var id plumbing.Hash
	copy(id[:], h.Sum(nil))
	return id, nil
}

// sessionObjects encodes the small objects of a push (the record blob, the trees, the commit)
// with go-git; the chunks are streamed by writePack.
func sessionObjects(p SessionPush, chunks []chunk, parent plumbing.Hash) ([]plumbing.EncodedObject, plumbing.Hash, error) {
	var objs []plumbing.EncodedObject
	add := func(typ plumbing.ObjectType, encode func(plumbing.EncodedObject) error) (plumbing.Hash, error) {
		o := &plumbing.MemoryObject{}
		o.SetType(typ)
		if err := encode(o); err != nil {
			return plumbing.ZeroHash, err
		}
		objs = append(objs, o)
		return o.Hash(), nil
	}
	record, err := add(plumbing.BlobObject, func(o plumbing.EncodedObject) error {
		w, err := o.Writer()
		if err != nil {
			return err
		}
		if _, err := w.Write(p.Record); err != nil {
			return err
		}
		return w.Close()
	})
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	entries := []object.TreeEntry{{Name: sessionRecordName, Mode: filemode.Regular, Hash: record}}
	if len(chunks) > 0 {
		events := &object.Tree{}
		for i, c := range chunks {
			events.Entries = append(events.Entries, object.TreeEntry{Name: chunkName(i), Mode: filemode.Regular, Hash: c.hash})
		}
		eh, err := add(plumbing.TreeObject, events.Encode)
		if err != nil {
			return nil, plumbing.ZeroHash, err
		}
		entries = []object.TreeEntry{{Name: sessionEventsDir, Mode: filemode.Dir, Hash: eh}, entries[0]}
	}
	root, err := add(plumbing.TreeObject, (&object.Tree{Entries: entries}).Encode)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	at := p.Time
	if at.IsZero() {
		at = time.Now()
	}
	who := object.Signature{Name: "agent-hooks", Email: "agent-hooks@localhost", When: at.UTC().Truncate(time.Second)}
	msg := p.Message
	if msg == "" {
		msg = "agent-hooks session " + p.ID + "\n"
	}
	c := &object.Commit{Author: who, Committer: who, Message: msg, TreeHash: root}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	commit, err := add(plumbing.CommitObject, c.Encode)
	return objs, commit, err
}

func chunkName(i int) string {
	s := strconv.Itoa(i + 1)
	return strings.Repeat("0", max(0, 6-len(s))) + s + ".jsonl"
}

// packSink takes the entries of a pack (gitobj.PackStream, gitobj.PackFile).
type packSink interface {
	Add(id plumbing.Hash, typ plumbing.ObjectType, size int64, compressed []byte) error
}

// writePack writes the small objects and the trail's chunks to a pack. Chunks are compressed
// two at a time (fast compression: a trail of a million lines is hundreds of megabytes) and
// written in order; their buffers and compressors are used again for the chunks after them.
func writePack(ctx context.Context, pw packSink, objs []plumbing.EncodedObject, trail io.ReaderAt, chunks []chunk) error {
	for _, o := range objs {
		r, err := o.Reader()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		z, err := deflate(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			err = pw.Add(o.Hash(), o.Type(), int64(len(b)), z.Bytes())
		}
		deflated.Put(z)
		if err != nil {
			return err
		}
	}
	s := stream.New().WithMaxGoroutines(2)
	var firstErr error
	for _, c := range chunks {
		s.Go(func() stream.Callback {
			var z *bytes.Buffer
			err := ctx.Err()
			if err == nil {
				z, err = deflate(io.NewSectionReader(trail, c.off, c.size), c.size)
			}
			return func() {
				if firstErr == nil {
					firstErr = err
				}
				if firstErr == nil {
					firstErr = pw.Add(c.hash, plumbing.BlobObject, c.size, z.Bytes())
				}
				if z != nil {
					deflated.Put(z) // Add has written it
				}
			}
		})
	}
	s.Wait()
	return firstErr
}

// deflated holds the buffers of compressed objects, and zlibWriters the compressors: a chunk's
// are used again for a later chunk rather than allocated and cleared anew.
var (
	deflated    = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	zlibWriters = sync.Pool{New: func() any {
		zw, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
		return zw
	}}
)

// deflate compresses size bytes read from r (zlib, best speed) into a buffer from deflated.
func deflate(r io.Reader, size int64) (*bytes.Buffer, error) {
	buf := deflated.Get().(*bytes.Buffer)
	buf.Reset()
	buf.Grow(int(size/4) + 64) // a trail compresses to about a fifth
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(buf)
	_, err := io.Copy(zw, r)
	if err == nil {
		err = zw.Close()
	}
	return buf, err
}

// SnapshotSize is the part of a trail of size bytes to push: up to its last line end, so that a
// line being appended while the push reads is left for the next push.
func SnapshotSize(r io.ReaderAt, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	end, err := lineEndBefore(r, 0, size)
	if err != nil || end > size {
		return 0, err
	}
	return end, nil
}
