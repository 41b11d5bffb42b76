package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// gitHookTimeout bounds a repository hook when the caller's context sets no deadline.
const gitHookTimeout = 10 * time.Minute

// hookFile is the path of the repository's git hook name: in core.hooksPath (relative to the
// work tree's top) when set, else in the hooks directory of the git directory.
func (r *Repo) hookFile(name string) string {
	dir := r.cfg.Get("core", "", "hookspath")
	switch {
	case dir == "":
		dir = filepath.Join(r.CommonDir, "hooks")
	case !filepath.IsAbs(r.env.expandHome(dir)):
		dir = filepath.Join(r.Root, dir)
	default:
		dir = r.env.expandHome(dir)
	}
	return filepath.Join(dir, name)
}

// hookRun is what a repository hook did.
type hookRun struct {
	ran      bool
	exitCode int
	output   string // stdout and stderr, interleaved as written, bounded
}

// runGitHook runs the repository's hook name with args, as git would: from the top of the work
// tree, with GIT_INDEX_FILE set, its output streamed to out. A hook file that is not executable
// is ignored with a warning, as git does.
func (r *Repo) runGitHook(ctx context.Context, name string, args []string, out io.Writer) (hookRun, error) {
	path := r.hookFile(name)
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return hookRun{}, nil
	}
	if fi.Mode()&0o111 == 0 {
		fmt.Fprintf(out, "hint: the %q hook was ignored because it is not set as executable (%s)\n", name, path)
		return hookRun{}, nil
	}
	timeout := gitHookTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	var env []string
	for _, kv := range r.env.Environ {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_EDITOR":
			continue
		}
		env = append(env, kv)
	}
	runner := process.Local{Environ: env}
	combined := &boundedBuffer{max: 64 << 10}
	w := io.MultiWriter(out, combined)
	p := process.Process{
		Argv:    append([]string{path}, args...),
		Env:     []string{"GIT_INDEX_FILE=" + r.indexPath(), "GIT_EDITOR=:"},
		Dir:     r.Root,
		Timeout: timeout,
	}
	res, err := runner.Run(ctx, p, w, w)
	if err == nil && errors.Is(res.StartErr, syscall.ENOEXEC) {
		// A script without a #! line: git runs it with the shell.
		p.Argv = append([]string{"sh"}, p.Argv...)
		res, err = runner.Run(ctx, p, w, w)
	}
	if err != nil {
		return hookRun{}, fmt.Errorf("run %s hook: %w", name, err)
	}
	if res.StartErr != nil {
		return hookRun{}, fmt.Errorf("run %s hook: %w", name, res.StartErr)
	}
	code := res.ExitCode
	if res.TimedOut {
		return hookRun{ran: true, exitCode: code, output: combined.String()}, fmt.Errorf("%s hook timed out", name)
	}
	return hookRun{ran: true, exitCode: code, output: combined.String()}, nil
}

// boundedBuffer keeps the last max bytes written to it; safe for the two output copiers.
type boundedBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut {
		return "…" + string(b.buf)
	}
	return string(b.buf)
}
