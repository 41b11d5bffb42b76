package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const stateID = "session-1-abc123"

func TestStateConcurrentUpdatesLoseNothing(t *testing.T) {
	t.Parallel()
	store := New(t.TempDir())
	type counter struct{ N int }
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			var c counter
			err := store.State(stateID, "count").Update(&c, func() (bool, error) {
				c.N++
				return true, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var c counter
	if err := store.State(stateID, "count").Update(&c, func() (bool, error) { return false, nil }); err != nil {
		t.Fatal(err)
	}
	if c.N != 40 {
		t.Errorf("40 concurrent increments left %d", c.N)
	}
}

func TestStateFileAndUnchangedWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := New(dir)
	var v struct{ A string }
	if err := store.State(stateID, "fmt").Update(&v, func() (bool, error) { return false, nil }); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, stateID+".fmt.json")
	if got := store.State(stateID, "fmt").Path(); got != path {
		t.Errorf("Path() = %s, want %s", got, path)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an unchanged state was written: %v", err)
	}
	if err := store.State(stateID, "fmt").Update(&v, func() (bool, error) { v.A = "x"; return true, nil }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"A":"x"}`; got != want {
		t.Errorf("state file = %s, want %s", got, want)
	}
	// the state of another session, or of another name, is another file
	var w struct{ A string }
	if err := store.SessionState("session-2-abc123").Update("fmt", &w, func() (bool, error) { return false, nil }); err != nil || w.A != "" {
		t.Errorf("another session's state: %+v, %v", w, err)
	}
	if err := store.SessionState(stateID).Update("fmt", &w, func() (bool, error) { return false, nil }); err != nil || w.A != "x" {
		t.Errorf("SessionState.Update read %+v, %v; want A=x", w, err)
	}
}

func TestStateErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := New(dir)
	ok := func() (bool, error) { return true, nil }
	for _, id := range []string{"", "../escape", "a/b", ".hidden", "s"} {
		if err := store.State(id, "x").Update(&struct{}{}, ok); err == nil {
			t.Errorf("session id %q accepted", id)
		}
	}
	for _, name := range []string{"", "../x", "a/b", ".lock"} {
		if err := store.State(stateID, name).Update(&struct{}{}, ok); err == nil {
			t.Errorf("state name %q accepted", name)
		}
	}
	boom := errors.New("boom")
	err := store.State(stateID, "x").Update(&struct{}{}, func() (bool, error) { return true, boom })
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want fn's error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, stateID+".x.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fn failed but the state was written: %v", err)
	}
	path := filepath.Join(dir, stateID+".bad.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	called := false
	err = store.State(stateID, "bad").Update(&struct{}{}, func() (bool, error) { called = true; return true, nil })
	if err == nil || !strings.Contains(err.Error(), path) || called {
		t.Errorf("corrupt state: err %v (want one naming %s), fn called %v", err, path, called)
	}
}
