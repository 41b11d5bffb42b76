// Package progresstest records what a wait reports to a progress.Reporter, for the tests of the
// packages that wait.
package progresstest

import (
	"sync"

	"github.com/autoagent/agent-hooks/internal/progress"
)

// Recorder is a progress.Reporter that keeps every wait begun on it.
type Recorder struct {
	mu    sync.Mutex
	waits []*Wait
}

// Wait is one wait begun on a Recorder, as it reported.
type Wait struct {
	r           *Recorder
	What, Where string
	details     []string
	done        int
}

// Begin implements progress.Reporter.
func (r *Recorder) Begin(what, where string) progress.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := &Wait{r: r, What: what, Where: where}
	r.waits = append(r.waits, w)
	return w
}

// Waits are the waits begun so far.
func (r *Recorder) Waits() []*Wait {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Wait(nil), r.waits...)
}

// Detail implements progress.Task.
func (w *Wait) Detail(d string) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	w.details = append(w.details, d)
}

// Done implements progress.Task.
func (w *Wait) Done() {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	w.done++
}

// Details are the details the wait reported, in order.
func (w *Wait) Details() []string {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return append([]string(nil), w.details...)
}

// DoneCount is how many times the wait was ended (one, for a wait that ended once).
func (w *Wait) DoneCount() int {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.done
}
