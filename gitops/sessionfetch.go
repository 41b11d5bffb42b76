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
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// refs lists the remote's refs, as git ls-remote does.
func (sr *SessionRemote) refs(ctx context.Context) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	ep, err := transport.NewEndpoint(sr.url)
	if err != nil {
		return nil, urlError(sr.url, err)
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return nil, err
	}
	sess, err := c.NewUploadPackSession(ep, sr.auth)
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

// Sessions lists the sessions pushed to the remote (the refs under SessionRefPrefix), by id.
func (sr *SessionRemote) Sessions(ctx context.Context) ([]RemoteSession, error) {
	refs, err := sr.refs(ctx)
	if err != nil {
		return nil, sr.errorf("list the sessions on %s", err)
	}
	var out []RemoteSession
	for name, h := range refs {
		if id, ok := strings.CutPrefix(name.String(), SessionRefPrefix); ok && id != "" && !strings.Contains(id, "/") {
			out = append(out, RemoteSession{ID: id, Commit: h.String()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
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

// fetchAllAbove is how many sessions are fetched by one wildcard refspec rather than one refspec
// each (go-git matches every refspec against every ref the remote has).
const fetchAllAbove = 64

// Fetch brings the given sessions (all of them when want is nil) into the cache; sessions it
// already holds at the same commit cost nothing.
func (c *SessionCache) Fetch(ctx context.Context, sr *SessionRemote, want []RemoteSession) error {
	var specs []config.RefSpec
	if want == nil || len(want) > fetchAllAbove {
		specs = []config.RefSpec{config.RefSpec("+" + SessionRefPrefix + "*:" + SessionRefPrefix + "*")}
	} else {
		for _, s := range want {
			if ref, err := c.repo.Reference(plumbing.ReferenceName(SessionRefPrefix+s.ID), false); err == nil && ref.Hash().String() == s.Commit {
				continue
			}
			specs = append(specs, config.RefSpec("+"+SessionRefPrefix+s.ID+":"+SessionRefPrefix+s.ID))
		}
	}
	if len(specs) == 0 {
		return nil
	}
	return withDirLock(c.dir, func() error {
		rem := git.NewRemote(c.repo.Storer, &config.RemoteConfig{Name: "session-remote", URLs: []string{sr.url}})
		err := rem.FetchContext(ctx, &git.FetchOptions{RefSpecs: specs, Auth: sr.auth, Tags: git.NoTags, Force: true})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return sr.errorf("fetch sessions from %s", err)
		}
		return nil
	})
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
