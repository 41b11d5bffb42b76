package sessions

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

// State is one named piece of per-session state that a configuration format keeps across the
// separate agent-hooks processes of a session (fresher's loop start, iteratr's pending output, …):
// the JSON file <id>.<name>.json beside the session's record, guarded by <id>.<name>.json.lock.
type State struct {
	dir, id, name string
}

// State returns the state called name of session id. Nothing is read or written until Update.
func (s *Store) State(id, name string) *State { return &State{dir: s.dir, id: id, name: name} }

// Path is the state's file.
func (st *State) Path() string { return filepath.Join(st.dir, st.id+"."+st.name+".json") }

// Update reads the state into v (a pointer; left as the caller set it when there is no state
// yet), calls fn, and when fn reports a change writes v back atomically (temporary file and
// rename). An exclusive lock on the state's .lock file is held throughout, so that agent-hooks
// processes firing events of one session at once never lose each other's updates. An error of
// fn is returned as is, and nothing is written.
func (st *State) Update(v any, fn func() (changed bool, err error)) error {
	if !ValidID(st.id) {
		return fmt.Errorf("session state: invalid session id %q", st.id)
	}
	if st.name == "" || st.name != filepath.Base(st.name) || strings.HasPrefix(st.name, ".") {
		return fmt.Errorf("session state: invalid state name %q", st.name)
	}
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	path := st.Path()
	return atomicfile.WithLock(path+".lock", func() error { return update(path, v, fn) })
}

// update is Update's read-modify-write, under the lock.
func update(path string, v any, fn func() (bool, error)) error {
	b, err := atomicfile.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read session state: %w", err)
	default:
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("read session state %s: %w", path, err)
		}
	}
	changed, err := fn()
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

// SessionState is the per-session state of one session, by name. It is what the hooks engine
// hands the formats' extensions (it satisfies hooks.SessionState).
type SessionState struct {
	store *Store
	id    string
}

// SessionState returns the per-session state of session id.
func (s *Store) SessionState(id string) SessionState { return SessionState{store: s, id: id} }

// Update is State(id, name).Update(v, fn).
func (x SessionState) Update(name string, v any, fn func() (changed bool, err error)) error {
	return x.store.State(x.id, name).Update(v, fn)
}
