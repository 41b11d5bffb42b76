package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// RunLean is the lean program, `agent-hooks` as agents start it on every tool call and stop. It
// runs `hook <agent>`, `run <event>` and `version` itself, with the rule type, command hooks and
// every configuration format; it hands everything else to the full program installed beside it
// (HandOff): every other command, a command line it does not read exactly as the full program
// would (help, an unknown flag), and a configuration that needs a hook type it lacks (git,
// GitHub, approvals, notifications) or that does not load. Results never differ between the two.
func RunLean(stamp Stamp) int {
	start := time.Now()
	InstallCrashHandling()
	a, err := NewApp(start, stamp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-hooks: %v\n", err)
		return ExitFailure
	}
	a.Lean = true
	return a.LeanMain(os.Args[1:])
}

// LeanMain runs the lean program's command line args.
func (a *App) LeanMain(args []string) (code int) {
	defer a.Recover(&code)
	command, why := leanCommand(args)
	if command == nil {
		return a.HandOff(args, why)
	}
	if args[0] != "hook" {
		// `hook` keeps the agent's input itself and hands it over with its *HandOffError: a
		// recorder would hold a large input a second time.
		a.Stdin = &recorder{r: a.Stdin}
	}
	// Orphans of hook processes (a setsid'd grandchild) become ours, to be ended with their hook;
	// whatever is left when agent-hooks exits is ended then.
	process.AdoptOrphans()
	defer process.StopAll()
	ctx, stop := a.WatchSignalsWhileProcessesRun(context.Background())
	defer stop()
	err := command(ctx, a)
	var handOff *HandOffError
	if errors.As(err, &handOff) {
		stop()
		return a.HandOff(args, handOff)
	}
	return a.Finish(ctx, err)
}

// leanCommand is the command of args if the lean program runs it, else nil and why not.
func leanCommand(args []string) (func(context.Context, *App) error, error) {
	if len(args) == 0 {
		return nil, errors.New("agent-hooks without a command is the full program's help")
	}
	other := fmt.Errorf("agent-hooks %s is a command of the full program", args[0])
	switch args[0] {
	case "--version", "-v":
		if len(args) == 1 {
			return func(_ context.Context, a *App) error {
				_, err := fmt.Fprint(a.Stdout, a.Version)
				return err
			}, nil
		}
	case "version":
		var f struct{ json bool }
		if pos, ok := parseFlags(args[1:], nil, nil, map[string]*bool{"json": &f.json}); ok && len(pos) == 0 {
			return func(_ context.Context, a *App) error {
				if f.json {
					return WriteJSON(a.Stdout, a.Version)
				}
				_, err := fmt.Fprint(a.Stdout, a.Version)
				return err
			}, nil
		}
	case "hook":
		var f HookFlags
		pos, ok := parseFlags(args[1:], map[string]*string{"timeout": &f.Timeout, "event": &f.Event}, nil, nil)
		if ok && len(pos) == 1 {
			f.Agent = pos[0]
			return func(ctx context.Context, a *App) error { return a.Hook(ctx, f) }, nil
		}
	case "run":
		var f RunFlags
		pos, ok := parseFlags(args[1:], map[string]*string{
			"payload": &f.Payload, "session": &f.Session, "workspace": &f.Workspace, "loop": &f.Loop, "config": &f.Config,
		}, map[string]*[]string{"data": &f.Data}, map[string]*bool{"json": &f.JSON})
		if ok && len(pos) == 1 {
			f.Event = pos[0]
			return func(ctx context.Context, a *App) error { return a.Run(ctx, f) }, nil
		}
	default:
		return nil, other
	}
	return nil, fmt.Errorf("the full program reads this command line of agent-hooks %s", args[0])
}

// parseFlags reads args as the full program's flag parser does for the command lines the lean
// program runs: --name value and --name=value for strings (and repeated for lists), a bare
// --name for booleans, anything else an argument. Whatever it does not read exactly so (a short
// flag, --help, --, an unknown flag, a flag without its value) is not ok: the full program
// reads it, and says what is wrong.
func parseFlags(args []string, strs map[string]*string, lists map[string]*[]string, bools map[string]*bool) (pos []string, ok bool) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-" || !strings.HasPrefix(arg, "-") {
			pos = append(pos, arg)
			continue
		}
		if !strings.HasPrefix(arg, "--") || arg == "--" {
			return nil, false
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		if b, isBool := bools[name]; isBool {
			if hasValue {
				return nil, false
			}
			*b = true
			continue
		}
		s, isString := strs[name]
		l, isList := lists[name]
		if !isString && !isList {
			return nil, false
		}
		if !hasValue {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" {
				return nil, false
			}
			i++
			value = args[i]
		}
		if isString {
			*s = value
		} else {
			*l = append(*l, value)
		}
	}
	return pos, true
}
