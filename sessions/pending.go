package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// pendingPushDir holds the sessions whose push to a remote did not happen: one small file per
// session, <dir>/.push-pending/<id>.json, kept until a push of the session succeeds. The dot keeps
// it out of `session list`, like the lock and temporary files.
const pendingPushDir = ".push-pending"

// PendingPush is a push of a session to a remote that did not happen (the push of
// "sessions.push" when the session ended, which timed out or failed): the session is to be
// pushed later.
type PendingPush struct {
	ID string `json:"id"`
	// Remote is the remote the push was for, and Workspace the repository whose remote it is.
	Remote    string `json:"remote"`
	Workspace string `json:"workspace"`
	// Error is why the push did not happen, Time when it last failed.
	Error string    `json:"error"`
	Time  time.Time `json:"time"`
}

func (s *Store) pendingPushPath(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	return filepath.Join(s.dir, pendingPushDir, id+".json"), nil
}

// MarkPushPending records that p.ID still has to be pushed (replacing what an earlier failure
// recorded).
func (s *Store) MarkPushPending(p PendingPush) error {
	path, err := s.pendingPushPath(p.ID)
	if err != nil {
		return fmt.Errorf("mark session push pending: %w", err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("mark session %s push pending: %w", p.ID, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("mark session %s push pending: %w", p.ID, err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("mark session %s push pending: %w", p.ID, err)
	}
	return nil
}

// PushPending is the pending push of session id; nil when it has none.
func (s *Store) PushPending(id string) (*PendingPush, error) {
	path, err := s.pendingPushPath(id)
	if err != nil {
		return nil, fmt.Errorf("read pending push: %w", err)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pending push of %s: %w", id, err)
	}
	var p PendingPush
	if err := json.Unmarshal(b, &p); err != nil || p.ID != id {
		return nil, fmt.Errorf("read pending push of %s: %s is not one", id, path)
	}
	return &p, nil
}

// PendingPushes are the sessions still to push, oldest session first. A mark that cannot be read
// is a problem, and left out.
func (s *Store) PendingPushes() (list []PendingPush, problems []error, err error) {
	dir := filepath.Join(s.dir, pendingPushDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read pending pushes: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && ValidID(id) {
			ids = append(ids, id)
		}
	}
	NewestFirst(ids)
	slices.Reverse(ids)
	for _, id := range ids {
		p, err := s.PushPending(id)
		switch {
		case err != nil:
			problems = append(problems, err)
		case p != nil:
			list = append(list, *p)
		}
	}
	return list, problems, nil
}

// ClearPushPending forgets the pending push of session id (pushed since); none is no error.
func (s *Store) ClearPushPending(id string) error {
	path, err := s.pendingPushPath(id)
	if err != nil {
		return fmt.Errorf("clear pending push: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear pending push of %s: %w", id, err)
	}
	return nil
}
