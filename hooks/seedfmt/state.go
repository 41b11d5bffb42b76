package seedfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	lf, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	defer lf.Close()
	if err := lock(lf); err != nil {
		return fmt.Errorf("lock %s: %w", lf.Name(), err)
	}
	defer unlock(lf) //nolint:errcheck // closing the file releases the lock too

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
	tmp, err := os.CreateTemp(dir, "."+sessionID+"."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write session state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write session state: %w", err)
	}
	return nil
}
