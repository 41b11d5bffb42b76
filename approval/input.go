package approval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/progress"
)

// InputOptions configure the input provider.
type InputOptions struct {
	// Stdin is the process's standard input, read for answers by hooks that ask for it; nil when
	// it may not be read.
	Stdin io.Reader
	// StdinTerminal says Stdin is a terminal: the question is then asked there (on the hook's
	// stderr), and an answer that is neither approve nor reject is asked again.
	StdinTerminal bool
	// PollInterval is how often the answer file is looked at (default 250ms).
	PollInterval time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Input is the "input" approval provider, the agent-pipelines seed's await_input: it waits for
// an answer written to a file, or typed on (or piped to) standard input, whichever comes first,
// until the hook's timeout (timeoutAction).
//
// Options (besides message and timeoutAction):
//
//	file         the answer file (relative to the workspace); ${VAR} is taken from the
//	             environment and {{key}} from the payload (a value holding a path separator or
//	             ".." is refused). It must not exist when the question is asked (an answer left from
//	             an earlier question is no answer to this one); it is read once it is not empty and
//	             has stopped changing, and removed then, so that it answers one question only.
//	stdin        read the answer from standard input (default: true when there is no file)
//	responseVar  the name under which the answer is handed on to the event's later hooks
//	             (hooks.HandOn)
//
// An answer's first word decides: approve, approved, yes, y, continue, ok approve; reject,
// rejected, no, n, abort reject; the rest of its first line is the reason, and the whole text (at
// most MaxCallbackBody bytes) is the response. Any other answer, standard input that ends without
// one (when no file can still answer), a file that is not a regular file: undecided, which blocks.
//
// An answer file is only as safe as its place: the agent a gate holds can write files, and one
// it can write is an answer it can give.
type Input struct {
	o InputOptions

	readOnce sync.Once
	lines    chan string // lines of standard input; closed at its end
}

// NewInput returns the input provider.
func NewInput(o InputOptions) *Input {
	if o.PollInterval <= 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Input{o: o}
}

type inputConfig struct {
	Common
	File        string `json:"file"`
	Stdin       *bool  `json:"stdin"`
	ResponseVar string `json:"responseVar"`
}

// Configure implements Provider.
func (in *Input) Configure(h *hooks.Hook, raw json.RawMessage) (hooks.Task, error) {
	var c inputConfig
	if err := DecodeOptions(raw, &c, &c.Common); err != nil {
		return nil, err
	}
	stdin := c.File == ""
	if c.Stdin != nil {
		stdin = *c.Stdin
	}
	if !stdin && c.File == "" {
		return nil, errors.New(`input: nothing can answer: set "file", or leave "stdin" true`)
	}
	if c.ResponseVar != "" {
		if err := CheckVarName(c.ResponseVar); err != nil {
			return nil, fmt.Errorf("responseVar: %w", err)
		}
	}
	return hooks.TaskFunc(func(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
		return in.run(ctx, inv, c, stdin)
	}), nil
}

// inputAnswer is an answer read from the file or standard input.
type inputAnswer struct {
	text string // the whole answer
	via  string // file or stdin
}

func (in *Input) run(ctx context.Context, inv *hooks.Invocation, c inputConfig, stdin bool) hooks.Outcome {
	start := in.o.Now()
	by := DecideBy(ctx, inv.Hook, start)
	details := map[string]any{"provider": "input"}
	message := c.Render(inv.Payload)
	var file string
	if c.File != "" {
		var err error
		if file, err = answerPath(c.File, inv); err != nil {
			return Undecided("input", err, details)
		}
		details["file"] = file
		if _, err := os.Lstat(file); err == nil {
			return Undecided("input", fmt.Errorf("the answer file %s exists before the question was asked: an answer left from an earlier question is no answer to this one; remove it", file), details)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Undecided("input", fmt.Errorf("check the answer file: %w", err), details)
		}
	}
	var lines <-chan string
	if stdin && in.o.Stdin != nil {
		lines = in.stdinLines()
	}
	if lines == nil && file == "" {
		return Undecided("input", errors.New("no standard input to read the answer from, and no answer file"), details)
	}
	where := []string{}
	if file != "" {
		where = append(where, "in "+file)
	}
	if lines != nil {
		where = append(where, "on standard input")
	}
	fmt.Fprintf(inv.Stderr, "agent-hooks: waiting until %s for an answer %s (approve or reject, optionally followed by a reason): %s\n",
		by.Format("15:04:05"), strings.Join(where, " or "), oneLine(message))
	if lines != nil && in.o.StdinTerminal {
		fmt.Fprintf(inv.Stderr, "\n%s\n\nAnswer (approve or reject, and a reason): ", Printable(message))
	}

	reporter := inv.Progress
	if lines != nil && in.o.StdinTerminal {
		reporter = nil // asked at the terminal: the prompt is what the person sees
	}
	wait := progress.Start(reporter, "waiting for an answer", strings.Join(where, " or "))
	wait.Detail("until " + by.Format("15:04:05"))
	defer wait.Done()
	timer := time.NewTimer(max(by.Sub(in.o.Now()), 0))
	defer timer.Stop()
	var poll <-chan time.Time
	if file != "" {
		t := time.NewTicker(in.o.PollInterval)
		defer t.Stop()
		poll = t.C
	}
	var last *answerFile // the file as the previous poll found it
	for {
		var got inputAnswer
		select {
		case <-ctx.Done():
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Undecided("input", errors.New("interrupted while waiting for an answer"), details)
			}
			return c.TimedOut(in.o.Now().Sub(start)).Outcome(details)
		case <-timer.C:
			return c.TimedOut(in.o.Now().Sub(start)).Outcome(details)
		case line, ok := <-lines:
			if !ok {
				lines = nil
				if file == "" {
					return Undecided("input", errors.New("standard input ended without an answer"), details)
				}
				continue
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
			got = inputAnswer{text: line, via: "stdin"}
		case <-poll:
			f, err := readAnswerFile(file)
			if err != nil {
				return Undecided("input", err, details)
			}
			if f == nil || !f.same(last) {
				last = f // not there yet, empty, or still being written
				continue
			}
			if err := os.Remove(file); err != nil {
				return Undecided("input", fmt.Errorf("remove the answer file once read (it would answer the next question too): %w", err), details)
			}
			got = inputAnswer{text: string(f.data), via: "file"}
		}
		a, ok := parseAnswer(got.text)
		if !ok && got.via == "stdin" && in.o.StdinTerminal {
			fmt.Fprint(inv.Stderr, "Please answer approve or reject (a reason may follow): ")
			continue
		}
		details["via"] = got.via
		if !ok {
			return Undecided("input", fmt.Errorf("the answer %q (%s) is neither approve nor reject", oneLine(got.text), got.via), details)
		}
		response := strings.TrimSpace(got.text)
		details["response"] = response
		a.Via = got.via
		o := a.Outcome(details)
		if c.ResponseVar != "" {
			o.Set = hooks.HandOn(inv.Payload, c.ResponseVar, response)
		}
		return o
	}
}

// parseAnswer reads an answer's first word and the rest of its first line.
func parseAnswer(text string) (Answer, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	word, reason, _ := strings.Cut(strings.TrimSpace(line), " ")
	a := Answer{Reason: Printable(strings.TrimSpace(reason))}
	switch strings.ToLower(strings.TrimRight(word, ".,;:!")) {
	case "approve", "approved", "yes", "y", "continue", "ok":
		a.Approved = true
	case "reject", "rejected", "no", "n", "abort":
	default:
		return a, false
	}
	return a, true
}

// answerPath expands the file option: ${VAR} from the environment, {{key}} from the payload,
// relative to the workspace. A payload value may not move the path elsewhere.
func answerPath(tmpl string, inv *hooks.Invocation) (string, error) {
	for _, m := range bodyPlaceholder().FindAllStringSubmatch(tmpl, -1) {
		if v, ok := template.Lookup(inv.Payload, m[2]); ok && m[2] != "" {
			if t := template.FormatValue(v); strings.ContainsAny(t, `/\`+"\x00") || t == ".." || t == "." {
				return "", fmt.Errorf("file: the payload's %s (%q) would move the answer file elsewhere", m[2], t)
			}
		}
	}
	s := ExpandBody(tmpl, inv.Payload, inv.Getenv, nil)
	if strings.IndexByte(s, 0) >= 0 || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("file: %q is not a path", s)
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(inv.Workspace, s)
	}
	return filepath.Clean(s), nil
}

// answerFile is the answer file as one poll found it.
type answerFile struct {
	data    []byte
	modTime time.Time
}

func (f *answerFile) same(g *answerFile) bool {
	return g != nil && f.modTime.Equal(g.modTime) && string(f.data) == string(g.data)
}

// readAnswerFile reads the answer file: nil when it is missing or empty.
func readAnswerFile(path string) (*answerFile, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check the answer file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("the answer file %s is not a regular file (%s)", path, st.Mode().Type())
	}
	if st.Size() == 0 {
		return nil, nil
	}
	if st.Size() > MaxCallbackBody {
		return nil, fmt.Errorf("the answer file %s is larger than %d KiB", path, MaxCallbackBody>>10)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the answer file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCallbackBody+1))
	if err != nil {
		return nil, fmt.Errorf("read the answer file: %w", err)
	}
	if len(data) > MaxCallbackBody {
		return nil, fmt.Errorf("the answer file %s is larger than %d KiB", path, MaxCallbackBody>>10)
	}
	return &answerFile{data: data, modTime: st.ModTime()}, nil
}

// stdinLines starts, once, the reader of standard input; it outlives one question, so that two
// questions in one run read it in turn.
func (in *Input) stdinLines() <-chan string {
	in.readOnce.Do(func() {
		in.lines = make(chan string, 16)
		go func() {
			defer close(in.lines)
			sc := bufio.NewScanner(in.o.Stdin)
			sc.Buffer(make([]byte, 4096), MaxCallbackBody)
			for sc.Scan() {
				in.lines <- sc.Text()
			}
		}()
	})
	return in.lines
}
