package cli

import (
	"context"
	"errors"

	"github.com/autoagent/agent-hooks/runner"
)

// RunFlags are `agent-hooks run <event>`'s command line.
type RunFlags struct {
	Event     string   // the one argument
	Payload   string   // --payload: a JSON object file, - for stdin
	Data      []string // --data key=value, repeatable
	Session   string   // --session
	Workspace string   // --workspace
	Loop      string   // --loop
	Config    string   // --config
	JSON      bool     // --json
}

// Run fires one event: `agent-hooks run <event>`. A lean program given a configuration it cannot
// run returns a *HandOffError, having run and written nothing.
func (a *App) Run(ctx context.Context, f RunFlags) error {
	data, err := a.ReadPayload(f.Payload, f.Data)
	if err != nil {
		return err
	}
	r, err := a.NewRunner()
	if err != nil {
		return err
	}
	out, err := r.Fire(ctx, runner.Request{
		Event: f.Event, Data: data, SessionID: f.Session, Workspace: f.Workspace,
		LoopFile: f.Loop, ConfigFile: a.AbsPath(f.Config), CaptureStdout: f.JSON,
	})
	var handOff *runner.HandOffError
	if errors.As(err, &handOff) {
		return &HandOffError{Cause: handOff}
	}
	if err != nil {
		return err
	}
	if f.JSON {
		if err := WriteJSON(a.Stdout, out.Result); err != nil {
			return err
		}
	}
	return FireError(out)
}

// FireError is the error that gives a fired event its exit code (see ExitCode): a block is
// *BlockedError, or *SilentError when the blocking hook's stderr, already shown live, is the
// reason; a skip is *SkipError; proceeding is nil.
func FireError(out *runner.Fired) error {
	switch {
	case out.Blocked() && out.Streamed && out.ReasonStreamed():
		return &SilentError{Code: ExitBlocked}
	case out.Blocked():
		return &BlockedError{Reason: out.Message()}
	case out.Skipped():
		return &SkipError{Reason: out.Message()}
	}
	return nil
}
