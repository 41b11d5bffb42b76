package seedfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// UpdateState reads the JSON state <dir>/<sessionID>.<name>.json into a T (the zero T when
// there is none), lets fn change it and, when fn reports a change, writes it back atomically
// (temporary file and rename). An exclusive lock on a sibling .lock file is held throughout, so
// agent-hooks processes firing events of one session at once never lose each other's updates.
func UpdateState[T any](dir, sessionID, name string, fn func(*T) (changed bool, err error)) error {
	if sessionID == "" || sessionID != filepath.Base(sessionID) || strings.HasPrefix(sessionID, ".") {
		return fmt.Errorf("session state: invalid session id %q", sessionID)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	path := filepath.Join(dir, sessionID+"."+name+".json")
	return atomicfile.WithLock(path+".lock", func() error { return updateState(path, fn) })
}

// updateState is UpdateState's read-modify-write, under the lock.
func updateState[T any](path string, fn func(*T) (changed bool, err error)) error {
	var v T
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read session state: %w", err)
	default:
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("read session state %s: %w", path, err)
		}
	}
	changed, err := fn(&v)
	if err != nil || !changed {
		return err
	}
	b, err = json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode session state: %w", err)
	}
	if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	return nil
}
