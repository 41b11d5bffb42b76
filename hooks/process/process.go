// Package process starts hook processes and waits for them: each in its own process group, its
// output captured (and shown live), its stdin fed, and nothing it started left running once it is
// done. The engine (package hooks) starts its command hooks through a Starter, Local unless it is
// given another, so that what the engine decides can be tested without a process.
package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits of a hook process.
const (
	// MaxCapture is how much of each output stream is kept; the rest is counted and dropped.
	MaxCapture = 1 << 20
	// KillGrace is how long a timed-out hook's process group has between SIGTERM and SIGKILL.
	KillGrace = 2 * time.Second
	// DefaultTimeout bounds a Process that sets no Timeout (a hook's default timeout, SPEC.md
	// section 3: hooks.DefaultTimeout is this).
	DefaultTimeout = 60 * time.Second
	// pipeDrain bounds how long output is read after the hook's process group was killed
	// (a descendant that escaped the group may hold the pipe open).
	pipeDrain = 500 * time.Millisecond
)

// Process describes one hook process to start.
type Process struct {
	Argv  []string // program and arguments; the native dialect uses sh -c <command>
	Env   []string // KEY=VALUE pairs added to the invocation's environment
	Stdin []byte
	// StdinFile, when set, is a file the process reads as its stdin instead of Stdin (a large
	// payload, written there once rather than held in memory and fed through a pipe).
	StdinFile string
	Dir       string        // defaults to the workspace
	Timeout   time.Duration // defaults to the hook's timeout
	Cleanup   func()        // called when the process is done (removes temporary files); may be nil
}

// Result is what a hook process did.
type Result struct {
	ExitCode  int
	TimedOut  bool
	StartErr  error // the process could not be started
	Stdout    string
	Stderr    string
	Truncated bool // output beyond the capture limit was dropped
	Duration  time.Duration
}

// Starter starts a hook's process and waits for it. Local is the real one; a test of what the
// engine decides gives one that starts nothing.
type Starter interface {
	// Run starts p and waits for it; liveOut and liveErr, when not nil, receive its stdout and
	// stderr as they come. A process that could not start is a Result with StartErr (exit code
	// 127); one that ran out of its timeout a Result with TimedOut (exit code 124). A cancelled
	// ctx (not a timeout) is reported as ctx.Err() with the partial result; any other error
	// (no pipe could be made) with a nil Result.
	Run(ctx context.Context, p Process, liveOut, liveErr io.Writer) (*Result, error)
}

// Local starts hook processes on this machine in their own process group and guarantees that
// none of them outlives its hook: on timeout or cancellation the group gets SIGTERM, then SIGKILL
// after the grace period; when the hook's main process exits, whatever it left running in its
// group is killed, and, where this process adopts orphans (AdoptOrphans), whatever the hook
// started that left the group too.
type Local struct {
	Environ []string      // base environment, before each Process's Env
	Grace   time.Duration // between SIGTERM and SIGKILL; 0 is KillGrace
}

var _ Starter = (*Local)(nil)

// Run starts p and waits for it (see Starter).
func (r *Local) Run(ctx context.Context, p Process, liveOut, liveErr io.Writer) (*Result, error) {
	res := &Result{}
	if len(p.Argv) == 0 {
		res.StartErr = errors.New("empty command")
		return res, nil
	}
	grace := r.Grace
	if grace <= 0 {
		grace = KillGrace
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	starting()
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	prog := p.Argv[0]
	if prog == "sh" {
		prog = shellPath()
	}
	// exec.Command rather than CommandContext: every stdio is an *os.File, so os/exec starts no
	// copying goroutines and needs no WaitDelay, and the context is watched with AfterFunc
	// callbacks instead of a goroutine per hook (the per-hook path is hot: see BenchmarkFireTrue).
	cmd := exec.Command(prog, p.Argv[1:]...)
	cmd.Dir = p.Dir
	cmd.Env = append(append(make([]string, 0, len(r.Environ)+len(p.Env)+1), r.Environ...), p.Env...)
	var tag string // NAME=VALUE
	if adoptingOrphans() {
		// Descendants inherit the tag: an orphan that left the group is known by it. It is
		// registered before the process starts, so that no sweep ever takes it for a finished
		// hook's.
		tag = newHookTag()
		cmd.Env = append(cmd.Env, tag)
		hookStarted(tag)
		defer hookDone(tag)
	}
	setProcessGroup(cmd)

	// A payload that fits in the pipe's buffer is written before the hook starts, so no goroutine
	// has to feed it.
	prefilled := len(p.Stdin) <= stdinPrefill
	newStdin := os.Pipe // a goroutine writes: closing our end must stop it (pipeDrain)
	if prefilled {
		newStdin = inputPipe
	}
	if p.StdinFile != "" {
		// The hook reads the file itself: nothing to write, no goroutine.
		prefilled = true
		newStdin = func() (*os.File, *os.File, error) {
			f, err := os.Open(p.StdinFile)
			return f, nil, err
		}
	}
	stdinR, stdinW, err := newStdin()
	if err != nil {
		return nil, err
	}
	// Where a pidfd can be polled (Linux), this goroutine reads the output itself, polling it
	// with the hook's exit (pollOutput): no copier goroutines, none of the runtime's poller, and
	// no wake-ups of other threads on the per-hook path. Elsewhere copier goroutines read it.
	var outR, errR *os.File // our ends, for the copiers
	outFD, errFD := -1, -1  // our ends, for pollOutput
	var outW, errW *os.File
	if pidfdPolls() {
		if outFD, outW, err = rawPipe(); err != nil {
			closeAll(stdinR, stdinW)
			return nil, err
		}
		if errFD, errW, err = rawPipe(); err != nil {
			closeAll(stdinR, stdinW, outW)
			closeFDs(outFD)
			return nil, err
		}
	} else {
		if outR, outW, err = outputPipe(); err != nil {
			closeAll(stdinR, stdinW)
			return nil, err
		}
		if errR, errW, err = outputPipe(); err != nil {
			closeAll(stdinR, stdinW, outR, outW)
			return nil, err
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, outW, errW
	if prefilled && stdinW != nil {
		_, _ = stdinW.Write(p.Stdin)
		_ = stdinW.Close()
	}

	start := time.Now()
	if err := startable(p); err != nil {
		closeAll(stdinR, stdinW, outR, outW, errR, errW)
		closeFDs(outFD, errFD)
		res.StartErr, res.ExitCode = err, 127
		return res, nil
	}
	if err := cmd.Start(); err != nil {
		closeAll(stdinR, stdinW, outR, outW, errR, errW)
		closeFDs(outFD, errFD)
		if errors.Is(err, syscall.E2BIG) {
			err = &InputError{Err: fmt.Errorf("its arguments and environment are larger than the system allows: %w", err)}
		}
		res.StartErr, res.ExitCode = err, 127
		return res, nil
	}
	closeAll(stdinR, outW, errW) // the child holds its own copies
	track(cmd.Process)

	// On timeout or cancellation: SIGTERM to the group, SIGKILL after the grace period.
	var killTimer *time.Timer
	var killMu sync.Mutex
	stopWatch := context.AfterFunc(runCtx, func() {
		signalGroup(cmd.Process, false)
		killMu.Lock()
		killTimer = time.AfterFunc(grace, func() { signalGroup(cmd.Process, true) })
		killMu.Unlock()
	})
	defer func() {
		stopWatch()
		killMu.Lock()
		if killTimer != nil {
			killTimer.Stop()
		}
		killMu.Unlock()
	}()

	var stdout, stderr capture
	streams := [2]rawStream{{fd: outFD, c: &stdout, live: liveOut}, {fd: errFD, c: &stderr, live: liveErr}}
	defer func() { closeFDs(streams[0].fd, streams[1].fd) }()
	polled := false
	if outFD >= 0 {
		// Reads the output until the hook's main process has exited; false without a pidfd for
		// it, when the copiers take over.
		if polled = pollOutput(cmd.Process, &streams); !polled {
			outR, errR = pollerFiles(&streams)
		}
	}

	// The goroutines (the copiers, the stdin feeder) signal the last one out instead of a
	// goroutine waiting on a WaitGroup.
	drained := make(chan struct{})
	var pending atomic.Int32
	done := func() {
		if pending.Add(-1) == 0 {
			close(drained)
		}
	}
	if !prefilled {
		pending.Add(1)
	}
	if outR != nil {
		pending.Add(2)
	}
	if pending.Load() == 0 {
		close(drained)
	}
	if !prefilled {
		go func() {
			defer done()
			_, _ = stdinW.Write(p.Stdin) // EPIPE when the hook does not read: fine
			_ = stdinW.Close()
		}()
	}
	if outR != nil {
		go func() { defer done(); stdout.copyFrom(outR, liveOut) }()
		go func() { defer done(); stderr.copyFrom(errR, liveErr) }()
		awaitExit(cmd.Process.Pid)
	}

	waitErr := cmd.Wait()
	res.Duration = time.Since(start)
	reapGroup(cmd.Process) // nothing the hook started may outlive it
	untrack(cmd.Process)
	if tag != "" {
		sweepOrphans(tag, cmd.Process.Pid)
	}

	// The output is read to its end, for as long as pipeDrain (a descendant that escaped the
	// group may hold the pipe open).
	deadline := time.Now().Add(pipeDrain)
	if polled {
		pollStreams(&streams, -1, deadline)
	}
	select {
	case <-drained:
	default:
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-drained:
		case <-t.C:
			closeAll(outR, errR, stdinW) // unblock the copiers
			<-drained
		}
		t.Stop()
	}
	closeAll(outR, errR)

	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Truncated = stdout.dropped > 0 || stderr.dropped > 0
	res.ExitCode = cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		res.StartErr = waitErr
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
		res.ExitCode = 124
	}
	return res, nil
}

// InputError is a hook that could not start because of what it was to be given: a payload value
// no process can receive (a NUL byte in an argument or in the environment, more than the system
// allows). The engine fails closed on it: a blockable event is blocked, whether or not the hook is
// blocking, so that a payload cannot walk around a gate by making it unable to start.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// startable checks what the system would refuse to pass to a process: a NUL byte ends a C
// string, so no argument or environment variable can hold one.
func startable(p Process) error {
	for i, a := range p.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return &InputError{Err: fmt.Errorf("argument %d contains a NUL byte, which no process can receive", i)}
		}
	}
	for _, kv := range p.Env {
		if strings.IndexByte(kv, 0) >= 0 {
			name, _, _ := strings.Cut(kv, "=")
			return &InputError{Err: fmt.Errorf("environment variable %s contains a NUL byte, which no process can receive", name)}
		}
	}
	return nil
}

// hookTagVar names the variable that tags the processes of one hook execution (when orphans are
// adopted): a descendant that left the hook's process group is recognised by it.
const hookTagVar = "AGENT_HOOKS_HOOK_ID"

var (
	selfPID = strconv.Itoa(os.Getpid())
	hookSeq atomic.Uint64
)

// hookTagPrefix starts the tags of this process's hook executions.
var hookTagPrefix = hookTagVar + "=" + selfPID + "."

// newHookTag is the variable (NAME=VALUE) that tags one hook execution of this process.
func newHookTag() string {
	var seq [20]byte
	return hookTagPrefix + string(strconv.AppendUint(seq[:0], hookSeq.Add(1), 10))
}

// running are the hook processes started and not yet waited for, for StopAll; tags are the
// tags of the hook executions not yet swept.
// firstStart is what BeforeFirstStart was given, until the first process starts.
var firstStart struct {
	sync.Mutex
	f func()
}

// BeforeFirstStart has f called once, just before the first process this program starts
// through Local (and not at all if it starts none): the place for work that matters only while
// processes run, such as watching signals to stop them. A later call replaces an f not yet
// called.
func BeforeFirstStart(f func()) {
	firstStart.Lock()
	firstStart.f = f
	firstStart.Unlock()
}

// starting runs BeforeFirstStart's f, the first time.
func starting() {
	firstStart.Lock()
	f := firstStart.f
	firstStart.f = nil
	firstStart.Unlock()
	if f != nil {
		f()
	}
}

var running = struct {
	sync.Mutex
	procs map[*os.Process]struct{}
	tags  map[string]struct{}
}{procs: map[*os.Process]struct{}{}, tags: map[string]struct{}{}}

func track(p *os.Process) {
	running.Lock()
	running.procs[p] = struct{}{}
	running.Unlock()
}

func hookStarted(tag string) {
	running.Lock()
	running.tags[tag] = struct{}{}
	running.Unlock()
}

func hookDone(tag string) {
	running.Lock()
	delete(running.tags, tag)
	running.Unlock()
}

// runningTag reports whether tag is the tag of a hook execution not yet over.
func runningTag(tag string) bool {
	running.Lock()
	defer running.Unlock()
	_, ok := running.tags[tag]
	return ok
}

func untrack(p *os.Process) {
	running.Lock()
	delete(running.procs, p)
	running.Unlock()
}

// StopAll kills every hook process group still running and, where this process adopts orphans,
// every process it adopted: the last step of a program that exits, normally or early (SIGQUIT),
// so that nothing a hook started outlives agent-hooks. Hooks being waited for then end as
// interrupted.
func StopAll() {
	running.Lock()
	for p := range running.procs {
		signalGroup(p, true)
	}
	running.Unlock()
	stopAdopted()
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// capture keeps the first MaxCapture bytes of a stream and counts the rest.
type capture struct {
	buf     []byte
	dropped int64
}

// chunks are the read buffers of the copiers, reused from hook to hook: two fresh 32 KiB
// buffers a hook would make a run of 50 hooks collect garbage.
var chunks = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (c *capture) copyFrom(r io.Reader, live io.Writer) {
	buf := chunks.Get().(*[32 << 10]byte)
	defer chunks.Put(buf)
	chunk := buf[:]
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			c.take(chunk[:n], &live)
		}
		if err != nil {
			return
		}
	}
}

// take keeps what fits of p and writes it all to *live, which a writer that panics sets to nil.
func (c *capture) take(p []byte, live *io.Writer) {
	if *live != nil && !writeLive(*live, p) {
		*live = nil
	}
	keep := min(len(p), MaxCapture-len(c.buf))
	c.buf = append(c.buf, p[:keep]...)
	c.dropped += int64(len(p) - keep)
}

// rawStream is our end of a hook's stdout or stderr as a plain descriptor (-1: closed), read by
// pollOutput into its capture and live writer.
type rawStream struct {
	fd   int
	c    *capture
	live io.Writer
}

// read reads what the stream holds once (poll said it is readable), closing it at its end or on
// an error.
func (s *rawStream) read(chunk []byte) {
	n, err := readFD(s.fd, chunk)
	if n > 0 {
		s.c.take(chunk[:n], &s.live)
	}
	if n <= 0 && !retryable(err) {
		closeFDs(s.fd)
		s.fd = -1
	}
}

// writeLive writes to a live output. A writer that panics (a bug in it) ends the live output of
// that stream, not the process: the copier is a goroutine of its own, where nothing else would
// recover, and the output is still captured.
func writeLive(w io.Writer, p []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, _ = w.Write(p)
	return true
}

func (c *capture) String() string {
	if c.dropped > 0 {
		return string(c.buf) + "\n[agent-hooks: output truncated, " + strconv.FormatInt(c.dropped, 10) + " more bytes]"
	}
	return string(c.buf)
}
