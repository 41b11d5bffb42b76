package approval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/progress"
)

// Terminal is the person's terminal: where the local provider prompts and reads the answer.
type Terminal struct {
	In  io.Reader
	Out io.Writer
}

// LocalOptions configure the local provider.
type LocalOptions struct {
	// Dir holds the pending requests ($AUTOAGENT_HOME/approvals).
	Dir string
	// Terminal is set when a person is at a terminal; nil means nobody is, and requests are
	// decided only with `agent-hooks approvals approve|reject`. The caller decides (isatty).
	Terminal *Terminal
	// User names who answers at the terminal ($USER).
	User string
	// PID is recorded in requests so that `approvals list` can say who waits.
	PID int
	// PollInterval is how often the request file is checked for a decision (default 250ms).
	PollInterval time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Local is the "local" approval provider. Each request is recorded as a pending file; on a
// terminal the person is also asked there (y or n, with an optional reason), and whichever answer
// comes first — the terminal or `agent-hooks approvals approve|reject <id>` from another process
// — decides. Without an answer before the hook's timeout, timeoutAction decides.
type Local struct {
	o     LocalOptions
	store *Store

	readOnce sync.Once
	lines    chan string // lines typed at the terminal; closed at EOF
}

// NewLocal returns the local provider.
func NewLocal(o LocalOptions) *Local {
	if o.PollInterval <= 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Local{o: o, store: &Store{Dir: o.Dir, Now: o.Now}}
}

// Store is where the provider keeps its requests.
func (l *Local) Store() *Store { return l.store }

type localConfig struct {
	Common
}

// Configure implements Provider.
func (l *Local) Configure(h *hooks.Hook, raw json.RawMessage) (hooks.Task, error) {
	var c localConfig
	if err := DecodeOptions(raw, &c, &c.Common); err != nil {
		return nil, err
	}
	return hooks.TaskFunc(func(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
		return l.run(ctx, inv, c.Common)
	}), nil
}

func (l *Local) run(ctx context.Context, inv *hooks.Invocation, c Common) hooks.Outcome {
	start := l.o.Now()
	by := DecideBy(ctx, inv.Hook, start)
	message := c.Render(inv.Payload)
	if tc := ToolCallOf(inv.Payload); tc != nil {
		message += "\n\n" + tc.Text()
	}
	req := &Request{
		SessionID: inv.SessionID, Event: inv.Event, Hook: inv.Hook.Name,
		Message: message, Workspace: inv.Workspace,
		ExpiresAt: by.UTC(), TimeoutAction: c.TimeoutAction, PID: l.o.PID, Terminal: l.o.Terminal != nil,
	}
	open := inv.AsksAgain && c.TimeoutAction != hooks.DecisionApprove
	if open {
		key, err := RequestID(message, inv.Payload)
		if err != nil {
			return Undecided("local", err, nil)
		}
		req.Key, req.AsksAgain, req.ExpiresAt = key, true, time.Time{}
		found, err := l.store.Find(inv.SessionID, inv.Hook.Name, key)
		if err != nil {
			return Undecided("local", fmt.Errorf("look for an earlier request: %w", err), nil)
		}
		if found != nil && found.State != StatePending {
			fmt.Fprintf(inv.Stderr, "agent-hooks: approval %s, asked before, was %s\n", found.ID, found.State)
			return found.Answer().Outcome(map[string]any{"provider": "local", "requestId": found.ID})
		}
		if found != nil {
			req = found // waited on again
		}
	}
	if req.ID == "" {
		if err := l.store.Create(req); err != nil {
			return Undecided("local", fmt.Errorf("record the approval request: %w", err), nil)
		}
	}
	details := map[string]any{"provider": "local", "requestId": req.ID}
	if open {
		fmt.Fprintf(inv.Stderr, "agent-hooks: approval %s pending: %s\n", req.ID, oneLine(req.Message))
	} else {
		fmt.Fprintf(inv.Stderr, "agent-hooks: approval %s pending until %s: %s\n", req.ID, by.Format("15:04:05"), oneLine(req.Message))
	}
	fmt.Fprintf(inv.Stderr, "agent-hooks:   approve: agent-hooks approvals approve %s [--reason R]\n", req.ID)
	fmt.Fprintf(inv.Stderr, "agent-hooks:   reject:  agent-hooks approvals reject %s --reason R\n", req.ID)
	if inv.Getenv != nil && inv.Getenv("GITHUB_ACTIONS") == "true" {
		fmt.Fprintln(inv.Stderr, `agent-hooks: note: in GitHub Actions nobody can answer a local approval on the runner; use "provider": "github"`)
	}

	// Asked at the terminal, the prompt is what the person sees; otherwise the wait's status.
	reporter := inv.Progress
	if l.o.Terminal != nil {
		reporter = nil
	}
	status := progress.Start(reporter, "approval "+req.ID+" pending", "agent-hooks approvals approve "+req.ID)
	if !open {
		status.Detail("until " + by.Format("15:04:05"))
	}
	a, err := l.wait(ctx, req, by, c)
	status.Done()
	if err != nil {
		return Undecided("local", err, details)
	}
	if a.Via == "timeout" && open {
		return l.leftOpen(req, details)
	}
	if a.Via == "timeout" {
		a = c.TimedOut(l.o.Now().Sub(start))
		if r, err := l.store.Decide(req.ID, StateExpired, Decision{Via: "timeout", Reason: a.Reason}); err != nil {
			var done *DecidedError
			if !errors.As(err, &done) {
				return Undecided("local", fmt.Errorf("record the timeout of approval %s: %w", req.ID, err), details)
			}
			a = r.Answer() // decided at the last moment: the decision wins
		}
	}
	return a.Outcome(details)
}

// leftOpen is the outcome when nobody decided within the wait of a caller that asks again (an
// agent's tool call): the request stays pending, this call is refused as pending, saying how to
// decide, and the caller's next identical call picks the decision up (Find).
func (l *Local) leftOpen(req *Request, details map[string]any) hooks.Outcome {
	r, err := l.store.Get(req.ID)
	if err != nil {
		return Undecided("local", fmt.Errorf("check approval %s: %w", req.ID, err), details)
	}
	if r.State != StatePending { // decided at the last moment: the decision wins
		return r.Answer().Outcome(details)
	}
	details["decision"] = "pending"
	details["pending"] = true
	return hooks.Outcome{
		Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, ExitCode: 2,
		Reason: fmt.Sprintf("approval %s pending: nobody has decided yet (agent-hooks approvals approve|reject %s); "+
			"the request stays open, and the same call made again once it is decided picks the decision up", req.ID, req.ID),
		Details: details,
	}
}

// wait returns the answer to req: from the terminal, from the request file, or Via "timeout".
func (l *Local) wait(ctx context.Context, req *Request, by time.Time, c Common) (Answer, error) {
	t := l.o.Terminal
	var lines <-chan string
	if t != nil {
		lines = l.terminalLines() // lines typed ahead count, as in a shell
		fmt.Fprintf(t.Out, "\n%s\n\nApprove? [y/n, optionally followed by a reason] ", Printable(req.Message))
	}
	poll := time.NewTicker(l.o.PollInterval)
	defer poll.Stop()
	timer := time.NewTimer(max(time.Until(by), 0))
	defer timer.Stop()
	var rejecting bool // "n" was typed; the next line is the reason
	for {
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Answer{Via: "timeout"}, nil
			}
			_, _ = l.store.Decide(req.ID, StateCancelled, Decision{Via: "interrupt"})
			return Answer{}, fmt.Errorf("interrupted while waiting for approval %s", req.ID)
		case <-timer.C:
			if t != nil {
				fmt.Fprintf(t.Out, "\nNo answer in time (timeoutAction: %s).\n", c.TimeoutAction)
			}
			return Answer{Via: "timeout"}, nil
		case <-poll.C:
			r, err := l.store.Get(req.ID)
			if err != nil {
				return Answer{}, fmt.Errorf("check approval %s: %w", req.ID, err)
			}
			if r.State != StatePending {
				if t != nil {
					fmt.Fprintf(t.Out, "\nDecided elsewhere: %s.\n", r.Answer().Outcome(nil).Reason)
				}
				return r.Answer(), nil
			}
		case line, ok := <-lines:
			if !ok {
				lines = nil // the terminal is gone; the request file can still be decided
				fmt.Fprintf(t.Out, "\nNo terminal input; waiting for agent-hooks approvals approve|reject %s\n", req.ID)
				continue
			}
			a, done := l.answerLine(line, &rejecting, t)
			if !done {
				continue
			}
			r, err := l.store.Decide(req.ID, decisionState(a), Decision{By: a.By, Via: a.Via, Reason: a.Reason})
			var decided *DecidedError
			if errors.As(err, &decided) {
				return r.Answer(), nil
			}
			if err != nil {
				return Answer{}, err
			}
			return a, nil
		}
	}
}

func decisionState(a Answer) string {
	if a.Approved {
		return StateApproved
	}
	return StateRejected
}

// answerLine reads one typed line: "y [reason]", "n [reason]", or the reason after a bare "n".
func (l *Local) answerLine(line string, rejecting *bool, t *Terminal) (Answer, bool) {
	line = strings.TrimSpace(line)
	a := Answer{By: l.o.User, Via: "terminal"}
	if *rejecting {
		a.Reason = line
		return a, true
	}
	word, reason, _ := strings.Cut(line, " ")
	a.Reason = strings.TrimSpace(reason)
	switch strings.ToLower(word) {
	case "y", "yes":
		a.Approved = true
		return a, true
	case "n", "no":
		if a.Reason != "" {
			return a, true
		}
		*rejecting = true
		fmt.Fprint(t.Out, "Reason for rejecting (the agent sees it): ")
		return a, false
	}
	fmt.Fprint(t.Out, "Please answer y or n (a reason may follow): ")
	return a, false
}

// terminalLines starts, once, the reader of the terminal. It outlives one request, so that two
// approvals in one run read the same terminal in turn.
func (l *Local) terminalLines() <-chan string {
	l.readOnce.Do(func() {
		l.lines = make(chan string, 16)
		go func() {
			defer close(l.lines)
			sc := bufio.NewScanner(l.o.Terminal.In)
			for sc.Scan() {
				l.lines <- sc.Text()
			}
		}()
	})
	return l.lines
}

func oneLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	s = Printable(s)
	if cut {
		s += " …"
	}
	return s
}

// Printable is s as it may be shown to the person who decides: a request's text holds payload
// values (an issue title, a command) that the agent or an issue's author chose, and control
// characters in them (an escape sequence that clears the line, a carriage return, a bidi
// override) could make the text on the screen differ from the request. They are shown escaped
// (\x1b, \r, \u202e); newlines and tabs are kept.
func Printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
