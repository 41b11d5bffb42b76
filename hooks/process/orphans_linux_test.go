package process

import (
	"context"
	"os"
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
	l := &Local{Environ: os.Environ()}
	res, err := l.Run(context.Background(), Process{Argv: []string{"sh", "-c", script}, Dir: t.TempDir()}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StartErr != nil || res.ExitCode != 0 || res.Stdout != "done\n" {
		t.Fatalf("hook: %+v", res)
	}
	if left := children(); len(left) > 0 {
		t.Errorf("children left behind: %v", left)
	}
}
