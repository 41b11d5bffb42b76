package github

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// ActionInputs are the inputs of action.yml. A composite action does not hand its steps
// INPUT_* variables, so action.yml passes each one explicitly and they are read one by one.
type ActionInputs struct {
	Event            string
	Payload          string // a JSON object, or the path of a file holding one
	Config           string // hook configuration: a JSON object, or the path of a config file
	WorkingDirectory string
	GitHubToken      string
	SessionID        string
	FailOnBlock      bool
}

// Action is the GitHub Actions side of `agent-hooks action`: inputs, outputs, the step summary,
// annotations and masking, all through go-githubactions.
type Action struct {
	gha    *githubactions.Action
	getenv func(string) string
}

// NewAction writes workflow commands to stdout and reads the environment through getenv.
func NewAction(stdout io.Writer, getenv func(string) string) *Action {
	return &Action{
		gha:    githubactions.New(githubactions.WithWriter(stdout), githubactions.WithGetenv(getenv)),
		getenv: getenv,
	}
}

// input reads one input; a workflow-safe INPUT_WORKING_DIRECTORY spelling is accepted for
// INPUT_WORKING-DIRECTORY.
func (a *Action) input(name string) string {
	if v := a.gha.GetInput(name); v != "" {
		return v
	}
	return a.gha.GetInput(strings.ReplaceAll(name, "-", "_"))
}

// Inputs reads the inputs. The token is masked before anything else can be printed.
func (a *Action) Inputs() (ActionInputs, error) {
	in := ActionInputs{GitHubToken: a.input("github-token")}
	if in.GitHubToken != "" {
		a.gha.AddMask(in.GitHubToken)
	}
	in.Event = a.input("event")
	in.Payload = a.input("payload")
	in.Config = a.input("config")
	in.WorkingDirectory = a.input("working-directory")
	in.SessionID = a.input("session-id")
	in.FailOnBlock = true
	if v := a.input("fail-on-block"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return in, fmt.Errorf("input fail-on-block: %q is not true or false", v)
		}
		in.FailOnBlock = b
	}
	if in.Event == "" {
		return in, errors.New("input event is required (for example PreExecutionEnd)")
	}
	return in, nil
}

// StopCommands makes the runner ignore workflow commands (::set-output, ::add-mask, …) in what
// follows — hook output — until resume is called.
func (a *Action) StopCommands() (resume func()) {
	token := "agent-hooks-" + randomHex()
	a.gha.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	return func() { a.gha.IssueCommand(&githubactions.Command{Name: token}) }
}

func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Errorf writes an error annotation.
func (a *Action) Errorf(format string, args ...any) {
	a.gha.WithFieldsMap(map[string]string{"title": "agent-hooks"}).Errorf(format, args...)
}

// Warningf writes a warning annotation.
func (a *Action) Warningf(format string, args ...any) {
	a.gha.WithFieldsMap(map[string]string{"title": "agent-hooks"}).Warningf(format, args...)
}

// ErrNoOutputFile is returned when GITHUB_OUTPUT is not set (agent-hooks action run outside
// Actions): the outputs cannot be written.
var ErrNoOutputFile = errors.New("GITHUB_OUTPUT is not set: step outputs were not written (is this running in GitHub Actions?)")

var outputName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

// SetOutputs writes step outputs to the GITHUB_OUTPUT file. go-githubactions' SetOutput uses a
// fixed heredoc delimiter, so a value containing it could add outputs of its own; here every
// value gets a fresh random delimiter that it does not contain.
func (a *Action) SetOutputs(names []string, values map[string]string) error {
	if a.getenv("GITHUB_OUTPUT") == "" {
		return ErrNoOutputFile
	}
	for _, name := range names {
		if !outputName().MatchString(name) {
			return fmt.Errorf("output name %q is not valid", name)
		}
		if err := a.writeEntry("output", name, values[name]); err != nil {
			return err
		}
	}
	return nil
}

// AddSummary appends markdown to the job summary; it does nothing outside Actions.
func (a *Action) AddSummary(markdown string) error {
	if a.getenv("GITHUB_STEP_SUMMARY") == "" {
		return nil
	}
	return a.issueFileCommand("step_summary", markdown)
}

// sessionSummary is the session's part of the step summary: its Markdown, when the summary has
// room for it (GitHub refuses the whole summary of a step past maxStepSummary), else a line
// saying where to see it.
func (a *Action) sessionSummary(session string) string {
	if session == "" {
		return ""
	}
	used := int64(0)
	if fi, err := os.Stat(a.getenv("GITHUB_STEP_SUMMARY")); err == nil {
		used = fi.Size() // what the hooks wrote, forwarded
	}
	const room = 64 << 10 // for the outcome's table, and the summaries of later steps' hooks
	if used+int64(len(session))+room > maxStepSummary {
		return "\n\nThe session's calls (" + strconv.Itoa(len(session)) + " bytes of Markdown) do not fit in this step's summary: `agent-hooks session show --markdown` prints them.\n"
	}
	return "\n\n" + session
}

// OutputNames are the outputs of action.yml, in order.
var OutputNames = []string{"decision", "blocked", "reason", "feedback", "session-id", "commit-sha",
	"approval-decider", "approval-via", "approval-url", "result"}

// maxResultOutput keeps the result output well under GitHub's 1 MB limit for one output.
const maxResultOutput = 512 << 10

// Outputs are the values of the step outputs for an event's result. When the JSON result is too
// large for an output, the hooks' stdout and stderr in it are cut short.
func Outputs(res *hooks.Result) (map[string]string, error) {
	raw, err := json.Marshal(res)
	if err == nil && len(raw) > maxResultOutput {
		short := *res
		short.Hooks = make([]hooks.HookResult, len(res.Hooks))
		for i, h := range res.Hooks {
			h.Stdout, h.Stderr = clip(h.Stdout, 4096), clip(h.Stderr, 4096)
			short.Hooks[i] = h
		}
		raw, err = json.Marshal(&short)
	}
	if err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	sha := ""
	if v, ok := res.Set["commitSha"]; ok {
		sha = template.FormatValue(v)
	}
	approval := decidingApproval(res)
	return map[string]string{
		"decision":         res.Decision,
		"blocked":          strconv.FormatBool(res.Blocked),
		"reason":           res.Reason,
		"feedback":         res.Feedback,
		"session-id":       res.SessionID,
		"commit-sha":       sha,
		"approval-decider": template.FormatValue(approval["decider"]),
		"approval-via":     template.FormatValue(approval["via"]),
		"approval-url":     template.FormatValue(approval["url"]),
		"result":           string(raw),
	}, nil
}

// decidingApproval is the details of the approval a person decided that counts for the event:
// the one whose rejection blocked it, else the last one approved (nil when there is none). Its
// decider is who decided, via how (review or comment for the github provider) and url the
// review or comment.
func decidingApproval(res *hooks.Result) map[string]any {
	var found map[string]any
	for _, h := range res.Hooks {
		if h.Details["decider"] == nil {
			continue
		}
		if res.Blocked && h.Status == hooks.StatusBlocked && h.Reason == res.Reason {
			return h.Details
		}
		found = h.Details
	}
	return found
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes cut)", len(s)-n)
}

// Report writes what a step shows for an event's result: outputs, the step summary (the event's
// hooks, then session, the Markdown of the session's calls, "" for none), an error annotation for
// a block and a warning for each hook that failed. An approval that is still pending is a notice
// when the block does not fail the step (failOnBlock false): waiting is the expected state of a
// green job, not an error.
func (a *Action) Report(res *hooks.Result, failOnBlock bool, session string) error {
	var errs []error
	values, err := Outputs(res)
	if err == nil {
		err = a.SetOutputs(OutputNames, values)
	}
	errs = append(errs, err, a.AddSummary(OutcomeMarkdown(res, "")+a.sessionSummary(session)))
	fields := a.gha.WithFieldsMap(map[string]string{"title": "agent-hooks: " + res.Event})
	for _, w := range res.Warnings {
		fields.Warningf("%s", w)
	}
	switch {
	case !failOnBlock && Pending(res):
		fields.Noticef("%s is waiting for approval: %s", res.Event, res.Reason)
	case res.Blocked:
		fields.Errorf("%s blocked: %s", res.Event, res.Reason)
	}
	return errors.Join(errs...)
}

// Pending reports whether an event is blocked by an approval nobody has decided yet (a github
// approval with "wait": false). The first block stops the event, and its reason is the event's.
func Pending(res *hooks.Result) bool {
	if !res.Blocked {
		return false
	}
	for _, h := range res.Hooks {
		if pending, _ := h.Details[detailPending].(bool); pending && h.Status == hooks.StatusBlocked && h.Reason == res.Reason {
			return true
		}
	}
	return false
}
