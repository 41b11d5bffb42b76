package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/internal/sibling"
)

// FullName is the full program's name: every command, every hook type. The lean `agent-hooks`
// hands it what it does not do itself.
const FullName = "agent-hooks-full"

// The variables the lean program sets for the full one it hands a command to: when it started
// (the agent's timeout counts from then) and its version (the two must be one release's).
// NewApp takes them out of the environment the hooks get.
const (
	envHandOffStart   = "AGENT_HOOKS_HANDOFF_START"
	envHandOffVersion = "AGENT_HOOKS_HANDOFF_VERSION"
)

// HandOffError is a command the lean program does not run itself: the configuration needs a
// hook type only the full program has (Cause says which), or the full program's words for
// a problem. Nothing ran and nothing was written.
type HandOffError struct {
	Cause error
	// Input is what the command read of stdin, when it read it itself (Read) rather than
	// through the lean program's recorder (`hook`: the agent's input, kept once): the full
	// program reads the same.
	Input string
	Read  bool
}

func (e *HandOffError) Error() string { return e.Cause.Error() }

func (e *HandOffError) Unwrap() error { return e.Cause }

// recorder is the lean program's stdin: it keeps what the command read, for the full program
// to read the same when the command is handed over.
type recorder struct {
	r    io.Reader
	mu   sync.Mutex
	read strings.Builder
	used bool
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.mu.Lock()
	r.used = true
	r.read.Write(p[:n])
	r.mu.Unlock()
	return n, err
}

// taken is what was read so far, and whether anything tried to read at all.
func (r *recorder) taken() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read.String(), r.used
}

// HandOff runs the full program in this process's place with the same arguments: on Unix it
// replaces this process (the agent waits for the same process, and signals reach the full
// program), with what this process read of stdin given to it again: what a *HandOffError why
// says the command read, else what the lean program's recorder took. It returns only when the
// full program cannot be run: then the command fails, as the command would (`hook`: a refusal the
// agent reads as a block), with what to install.
func (a *App) HandOff(args []string, why error) int {
	path := sibling.Find(a.Executable, FullName)
	if path == "" {
		return a.fail(args, fmt.Errorf("%v; %s is not installed next to agent-hooks nor on PATH: install it from the same release as agent-hooks (%s)", why, FullName, a.installHint()))
	}
	var stdin string
	replay := false
	var handOff *HandOffError
	if errors.As(why, &handOff) && handOff.Read {
		stdin, replay = handOff.Input, true
	} else if rec, ok := a.Stdin.(*recorder); ok {
		stdin, replay = rec.taken()
	}
	env := append(slices.Clip(a.Environ),
		envHandOffStart+"="+strconv.FormatInt(a.Start.UnixNano(), 10),
		envHandOffVersion+"="+a.Version.Version)
	code, err := run(path, append([]string{path}, args...), env, stdin, replay)
	if err != nil {
		return a.fail(args, fmt.Errorf("%v; run %s: %w", why, path, err))
	}
	return code
}

// installHint says how to install the full program of this version.
func (a *App) installHint() string {
	v := a.Version.Version
	if v == "" || strings.HasPrefix(v, "(") {
		v = "latest"
	}
	return "go install github.com/autoagent/agent-hooks/cmd/" + FullName + "@" + v
}

// takeHandOff reads, and removes from the hooks' environment, what the lean program says of a
// command it handed over: the start time, and its version, which must be this program's.
func (a *App) takeHandOff() {
	start, version := a.Getenv(envHandOffStart), a.Getenv(envHandOffVersion)
	if start == "" && version == "" {
		return
	}
	a.Environ = slices.DeleteFunc(slices.Clone(a.Environ), func(kv string) bool {
		return strings.HasPrefix(kv, envHandOffStart+"=") || strings.HasPrefix(kv, envHandOffVersion+"=")
	})
	if ns, err := strconv.ParseInt(start, 10, 64); err == nil {
		if t := time.Unix(0, ns); t.Before(a.Start) {
			a.Start = t
		}
	}
	if version != a.Version.Version {
		a.HandOffProblem = fmt.Errorf("agent-hooks %s handed this command to %s %s: the two must be one release's (install both again from one)", version, FullName, a.Version.Version)
	}
}

// fail ends a command that could not run, as the command itself would have: under `hook`, a
// refusal in the agent's protocol (exit 2); otherwise exit 1.
func (a *App) fail(args []string, err error) int {
	if len(args) >= 2 && args[0] == "hook" {
		agent := args[1]
		if strings.HasPrefix(agent, "-") {
			agent = ""
		}
		err = a.HookError(agent, "agent-hooks hook: "+err.Error())
	}
	var blocked *BlockedError
	if errors.As(err, &blocked) {
		fmt.Fprintln(a.Stderr, blocked.Reason)
		return ExitBlocked
	}
	fmt.Fprintf(a.Stderr, "agent-hooks: %v\n", err)
	return ExitFailure
}

// Refuse ends the command args before it ran when the program cannot run it at all
// (App.HandOffProblem).
func (a *App) Refuse(args []string, err error) int { return a.fail(args, err) }
