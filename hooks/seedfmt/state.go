package seedfmt

import (
	"errors"

	"github.com/autoagent/agent-hooks/hooks"
)

// UpdateState reads the per-session state called name into a T (the zero T when there is none),
// lets fn change it and, when fn reports a change, has it written back. The session's store
// (hooks.SessionState) does the locking and the atomic write; a nil state is an error.
func UpdateState[T any](state hooks.SessionState, name string, fn func(*T) (changed bool, err error)) error {
	if state == nil {
		return errors.New("session state: no session")
	}
	var v T
	return state.Update(name, &v, func() (bool, error) { return fn(&v) })
}
