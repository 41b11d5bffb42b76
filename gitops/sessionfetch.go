package gitops

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// uploadPack opens an upload-pack session with the remote: the transport of its URL (go-git's
// in-process server for local repositories; git://, http(s) smart and ssh bounded by the
// remote's Limits).
func (sr *SessionRemote) uploadPack() (transport.UploadPackSession, error) {
	return sr.tr.NewUploadPackSession(sr.ep, sr.auth)
}

// refs lists the remote's refs, as git ls-remote does.
func (sr *SessionRemote) refs(ctx context.Context) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	sess, err := sr.uploadPack()
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return map[plumbing.ReferenceName]plumbing.Hash{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[plumbing.ReferenceName]plumbing.Hash, len(ar.References))
	for name, h := range ar.References {
		out[plumbing.ReferenceName(name)] = h
	}
	return out, nil
}

// RemoteSession is a session on a remote: its id and the commit its ref points at.
type RemoteSession struct {
	ID     string `json:"id"`
	Commit string `json:"commit"`
}

// SessionList is the sessions on a remote as one upload-pack session advertised them. The same
// session fetches them (SessionCache.Fetch), so that listing the sessions and reading some of
// them costs the remote one advertisement of its refs, however many sessions it holds: a second
// advertisement of 10,000 refs costs as much again as the listing. Close it when done.
type SessionList struct {
	Sessions []RemoteSession // by id

	sr      *SessionRemote
	up      transport.UploadPackSession // nil when the remote has no refs at all
	caps    *capability.List            // what the remote advertised
	fetched bool                        // the session's one upload-pack request was made
}

// ListSessions lists the sessions pushed to the remote (the refs under SessionRefPrefix), and
// keeps the connection that listed them for a fetch.
func (sr *SessionRemote) ListSessions(ctx context.Context) (*SessionList, error) {
	up, err := sr.uploadPack()
	if err != nil {
		return nil, sr.errorf("list the sessions on %s", err)
	}
	ar, err := up.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		up.Close()
		return &SessionList{sr: sr}, nil
	}
	if err != nil {
		up.Close()
		return nil, sr.errorf("list the sessions on %s", err)
	}
	l := &SessionList{sr: sr, up: up, caps: ar.Capabilities}
	for name, h := range ar.References {
		if id, ok := strings.CutPrefix(name, SessionRefPrefix); ok && id != "" && !strings.Contains(id, "/") {
			l.Sessions = append(l.Sessions, RemoteSession{ID: id, Commit: h.String()})
		}
	}
	slices.SortFunc(l.Sessions, func(a, b RemoteSession) int { return strings.Compare(a.ID, b.ID) })
	return l, nil
}

// Close ends the connection.
func (l *SessionList) Close() error {
	if l.up == nil {
		return nil
	}
	err := l.up.Close()
	l.up = nil
	return err
}

// find is the listed session id.
func (l *SessionList) find(id string) (RemoteSession, bool) {
	i, ok := slices.BinarySearchFunc(l.Sessions, id, func(s RemoteSession, id string) int { return strings.Compare(s.ID, id) })
	if !ok {
		return RemoteSession{}, false
	}
	return l.Sessions[i], true
}

// uploadPack asks the list's session for the objects of wants (less those of haves) and stores
// the pack it sends in sto.
func (l *SessionList) uploadPack(ctx context.Context, sto storer.Storer, wants, haves []plumbing.Hash) error {
	if l.fetched || l.up == nil {
		return errors.New("the listing's connection has already fetched (list the sessions again)")
	}
	l.fetched = true
	req := packp.NewUploadPackRequestFromCapabilities(l.caps)
	if l.caps.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return err
		}
	}
	req.Wants, req.Haves = wants, haves
	resp, err := l.up.UploadPack(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Close()
	var pack io.Reader = resp
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		pack = sideband.NewDemuxer(sideband.Sideband64k, resp)
	case req.Capabilities.Supports(capability.Sideband):
		pack = sideband.NewDemuxer(sideband.Sideband, resp)
	}
	return packfile.UpdateObjectStorage(sto, pack)
}

// SessionCache is a bare repository under a folder of the caller's, one per remote URL, into
// which pushed sessions are fetched to be read: nothing is checked out, and the workspace's own
// repository gets no objects or refs of them.
type SessionCache struct {
	dir  string
	repo *git.Repository
}

// OpenSessionCache opens (creating it when missing) the cache of the remote's sessions in dir.
func (sr *SessionRemote) OpenSessionCache(dir string) (*SessionCache, error) {
	sum := sha1.Sum([]byte(sr.url))
	path := filepath.Join(dir, hex.EncodeToString(sum[:8])+".git")
	var repo *git.Repository
	err := withDirLock(path, func() error {
		var err error
		repo, err = git.PlainOpen(path)
		if errors.Is(err, git.ErrRepositoryNotExists) {
			repo, err = git.PlainInit(path, true)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open the cache of %s's sessions: %w", sr.Name, err)
	}
	return &SessionCache{dir: path, repo: repo}, nil
}

func withDirLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WithLock(path+".lock", fn)
}

// Fetch brings sessions of the list (all of them when want is nil) into the cache, over the
// connection that listed them (a list fetches once). Sessions the cache already holds at the
// commit listed cost nothing, and one it holds at an older commit brings only what is new.
func (c *SessionCache) Fetch(ctx context.Context, l *SessionList, want []RemoteSession) error {
	if want == nil {
		want = l.Sessions
	}
	return withDirLock(c.dir, func() error {
		var wants, haves []plumbing.Hash
		var set []*plumbing.Reference
		wanted := map[plumbing.Hash]bool{}
		for _, w := range want {
			s, ok := l.find(w.ID)
			if !ok {
				return fmt.Errorf("session %s: %w %s", w.ID, ErrSessionNotPushed, l.sr.Name)
			}
			ref := plumbing.NewHashReference(plumbing.ReferenceName(SessionRefPrefix+s.ID), plumbing.NewHash(s.Commit))
			old, err := c.repo.Storer.Reference(ref.Name())
			if err == nil && old.Type() == plumbing.HashReference && old.Hash() == ref.Hash() {
				continue
			}
			set = append(set, ref)
			if wanted[ref.Hash()] || c.has(ref.Hash()) {
				continue
			}
			wanted[ref.Hash()] = true
			wants = append(wants, ref.Hash())
			if err == nil && old.Type() == plumbing.HashReference && c.has(old.Hash()) {
				haves = append(haves, old.Hash()) // the session's previous push, most likely its parent
			}
		}
		if len(wants) > 0 {
			if err := l.uploadPack(ctx, c.repo.Storer, wants, haves); err != nil {
				return l.sr.errorf("fetch sessions from %s", err)
			}
		}
		for _, ref := range set {
			if err := c.repo.Storer.SetReference(ref); err != nil {
				return fmt.Errorf("update the cache of %s's sessions: %w", l.sr.Name, err)
			}
		}
		return nil
	})
}

// has reports whether the cache holds object h.
func (c *SessionCache) has(h plumbing.Hash) bool {
	return c.repo.Storer.HasEncodedObject(h) == nil
}

// PushedSession is a session as it was pushed, read from the cache.
type PushedSession struct {
	ID     string
	Commit string
	Record []byte // session.json
	Chunks int    // how many blobs the trail is cut into
	repo   *git.Repository
	blobs  []plumbing.Hash
}

// ErrSessionNotPushed is returned (wrapped) for a session the remote does not have.
var ErrSessionNotPushed = errors.New("no such session on the remote")

// Session reads a fetched session.
func (c *SessionCache) Session(id string) (*PushedSession, error) {
	ref, err := c.repo.Reference(plumbing.ReferenceName(SessionRefPrefix+id), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, fmt.Errorf("session %s: %w", id, ErrSessionNotPushed)
	}
	if err != nil {
		return nil, fmt.Errorf("read pushed session %s: %w", id, err)
	}
	commit, err := c.repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("read pushed session %s: %w", id, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("read pushed session %s: %w", id, err)
	}
	p := &PushedSession{ID: id, Commit: commit.Hash.String(), repo: c.repo}
	f, err := tree.File(sessionRecordName)
	if err != nil {
		return nil, fmt.Errorf("read pushed session %s: %s: %w", id, sessionRecordName, err)
	}
	s, err := f.Contents()
	if err != nil {
		return nil, fmt.Errorf("read pushed session %s: %s: %w", id, sessionRecordName, err)
	}
	p.Record = []byte(s)
	events, err := tree.Tree(sessionEventsDir)
	if errors.Is(err, object.ErrDirectoryNotFound) {
		return p, nil // no hook ever ran
	}
	if err != nil {
		return nil, fmt.Errorf("read pushed session %s: %w", id, err)
	}
	entries := append([]object.TreeEntry(nil), events.Entries...)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for _, e := range entries {
		if !e.Mode.IsFile() {
			return nil, fmt.Errorf("read pushed session %s: %s/%s is not a file", id, sessionEventsDir, e.Name)
		}
		p.blobs = append(p.blobs, e.Hash)
	}
	p.Chunks = len(p.blobs)
	return p, nil
}

// OpenTrail reads the pushed audit trail: its chunks one after the other, each streamed from
// the cache. It may be called more than once.
func (p *PushedSession) OpenTrail() (io.ReadCloser, error) {
	return &chunkReader{repo: p.repo, blobs: p.blobs}, nil
}

// chunkReader reads blobs one after the other, opening each when the one before is done.
type chunkReader struct {
	repo  *git.Repository
	blobs []plumbing.Hash
	cur   io.ReadCloser
}

func (r *chunkReader) Read(b []byte) (int, error) {
	for {
		if r.cur == nil {
			if len(r.blobs) == 0 {
				return 0, io.EOF
			}
			blob, err := r.repo.BlobObject(r.blobs[0])
			if err != nil {
				return 0, fmt.Errorf("read trail chunk %s: %w", r.blobs[0], err)
			}
			if r.cur, err = blob.Reader(); err != nil {
				return 0, fmt.Errorf("read trail chunk %s: %w", r.blobs[0], err)
			}
			r.blobs = r.blobs[1:]
		}
		n, err := r.cur.Read(b)
		if errors.Is(err, io.EOF) {
			r.cur.Close()
			r.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (r *chunkReader) Close() error {
	if r.cur != nil {
		return r.cur.Close()
	}
	return nil
}
