package hooks

import (
	"context"
	"os/exec"
	"testing"
)

// Adopting orphans makes agent-hooks their parent, so it must also reap them: after a hook that
// left children behind in and out of its group, this process has no child left, not even a
// zombie. (Not parallel: other tests' hooks would be children too.)
func TestAdoptedOrphansAreReaped(t *testing.T) {
	script := `sleep 30 & (sleep 30 &); (sleep 0 &); (setsid sleep 30 &); echo done`
	if _, err := exec.LookPath("setsid"); err != nil {
		script = `sleep 30 & (sleep 30 &); (sleep 0 &); echo done`
	}
	e, _ := engineFor(t, hooksJSON("PostIteration", cmdHook("litter", script, "")), nil, nil)
	res, err := e.Fire(context.Background(), "PostIteration", nil)
	must(t, err)
	if res.Hooks[0].Status != StatusOK {
		t.Fatalf("hook: %+v", res.Hooks[0])
	}
	if left := children(); len(left) > 0 {
		t.Errorf("children left behind: %v", left)
	}
}
