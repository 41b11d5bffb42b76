package sessions

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestMain lets the test binary act as a separate process updating a session (see
// TestUpdatesAcrossProcesses): the lock must hold between processes, not only goroutines.
func TestMain(m *testing.M) {
	if dir := os.Getenv("SESSIONS_TEST_CHILD_DIR"); dir != "" {
		os.Exit(childUpdate(dir, os.Getenv("SESSIONS_TEST_CHILD_ID"), os.Getenv("SESSIONS_TEST_CHILD_N")))
	}
	os.Exit(m.Run())
}

func childUpdate(dir, id, nStr string) int {
	n, err := strconv.Atoi(nStr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := New(dir)
	for i := range 5 {
		issue := n*100 + i
		if _, err := s.Update(id, func(x *Session) error { x.StartIssue(issue); return nil }); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := s.Append(id, Event{Event: "PreExecutionStart", Name: strconv.Itoa(issue), Status: "ok"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestUpdatesAcrossProcesses(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	const procs = 20
	var wg sync.WaitGroup
	for n := 1; n <= procs; n++ {
		wg.Go(func() {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "SESSIONS_TEST_CHILD_DIR="+s.Dir(), "SESSIONS_TEST_CHILD_ID="+sess.ID, "SESSIONS_TEST_CHILD_N="+strconv.Itoa(n),
				// under -race, no second of sleep before each child exits (races are still reported)
				"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %d: %v\n%s", n, err, out)
			}
		})
	}
	wg.Wait()
	got, err := s.Get(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for n := 1; n <= procs; n++ {
		for i := range 5 {
			want = append(want, n*100+i)
		}
	}
	slices.Sort(got.IssuesPlanned)
	if !slices.Equal(got.IssuesPlanned, want) {
		t.Errorf("issuesPlanned has %d issues, want %d: updates were lost", len(got.IssuesPlanned), len(want))
	}
	events, problems, err := s.Events(sess.ID)
	if err != nil || len(problems) > 0 || len(events) != len(want) {
		t.Errorf("audit trail: %d events, %v, %v; want %d whole lines", len(events), problems, err, len(want))
	}
}
