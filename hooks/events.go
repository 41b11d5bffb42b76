package hooks

import (
	"regexp"
	"strings"
	"sync"
)

// The canonical events (SPEC.md section 2).
const (
	SessionStart       = "SessionStart"
	PreIteration       = "PreIteration"
	PostIteration      = "PostIteration"
	PreExecutionStart  = "PreExecutionStart"
	PostExecutionStart = "PostExecutionStart"
	PreExecutionEnd    = "PreExecutionEnd"
	PostExecutionEnd   = "PostExecutionEnd"
	PreGitCommit       = "PreGitCommit"
	PostGitCommit      = "PostGitCommit"
	Stop               = "Stop"
	SessionEnd         = "SessionEnd"
	Error              = "Error"
	Checkpoint         = "Checkpoint"
	ApprovalRequired   = "ApprovalRequired"

	// What a coding agent does between those moments (issue 13), fired by `agent-hooks hook
	// <agent>` from the agent's own hook events; Claude Code and Codex use the same names.
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PermissionRequest  = "PermissionRequest"
	Notification       = "Notification"
	PreCompact         = "PreCompact"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	// PreGitPush is fired before a push the agent runs itself (a Bash tool call running git push).
	PreGitPush = "PreGitPush"
)

type eventInfo struct {
	name     string
	canBlock bool
	aliases  []string
}

var canonicalEvents = []eventInfo{
	{SessionStart, true, []string{"started", "session_start", "on_session_start", "on-run-start"}},
	{PreIteration, true, []string{"next_iteration", "pre_iteration", "on_iteration_start", "on-iteration-start"}},
	{PostIteration, false, []string{"post_iteration", "on_iteration_complete", "on-iteration-end"}},
	{PreExecutionStart, true, []string{"on-task-start"}},
	{PostExecutionStart, false, nil},
	{PreExecutionEnd, true, nil},
	{PostExecutionEnd, false, []string{"on_task_complete", "on-task-complete"}},
	{PreGitCommit, true, []string{"pre-commit"}},
	{PostGitCommit, false, nil},
	{Stop, true, nil},
	{SessionEnd, false, []string{"finished", "session_end", "on_session_complete", "on-run-complete", "on-run-fail"}},
	{Error, false, []string{"on_error", "on-error"}},
	{Checkpoint, true, []string{"on_checkpoint"}},
	{ApprovalRequired, true, []string{"on_approval_required", "on-breakpoint"}},
	{UserPromptSubmit, true, nil},
	{PreToolUse, true, nil},
	{PostToolUse, false, nil},
	{PostToolUseFailure, false, nil},
	{PermissionRequest, true, nil},
	{Notification, false, nil},
	{PreCompact, false, nil}, // neither host lets a hook stop a compaction
	{SubagentStart, false, nil},
	{SubagentStop, true, nil},
	{PreGitPush, true, nil},
}

var (
	eventByName = map[string]*eventInfo{} // canonical names and aliases
	validName   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:-]*$`) })
)

func init() {
	for i := range canonicalEvents {
		e := &canonicalEvents[i]
		eventByName[e.name] = e
		for _, a := range e.aliases {
			eventByName[a] = e
		}
	}
}

// CanonicalEvents lists the canonical event names in SPEC order.
func CanonicalEvents() []string {
	out := make([]string, len(canonicalEvents))
	for i, e := range canonicalEvents {
		out[i] = e.name
	}
	return out
}

// Aliases returns the seed systems' names for a canonical event.
func Aliases(event string) []string {
	if e, ok := eventByName[event]; ok && e.name == event {
		return append([]string(nil), e.aliases...)
	}
	return nil
}

// KnownEventNames lists every canonical name and alias.
func KnownEventNames() []string {
	out := make([]string, 0, len(eventByName))
	for _, e := range canonicalEvents {
		out = append(out, e.name)
		out = append(out, e.aliases...)
	}
	return out
}

// ValidEventName reports whether name is syntactically an event name.
func ValidEventName(name string) bool { return validName().MatchString(name) }

// Canonical resolves an event name or alias to its canonical name. Custom events (declared in
// "customEvents") are their own canonical name. ok is false for an unknown name.
func Canonical(name string, custom []string) (canonical string, ok bool) {
	if e, found := eventByName[name]; found {
		return e.name, true
	}
	for _, c := range custom {
		if c == name {
			return name, true
		}
	}
	return "", false
}

// CanBlock reports whether a hook can block the (canonical) event. Known events follow the table
// of SPEC.md section 2; any other event blocks when its name begins with "Pre".
func CanBlock(event string) bool {
	if e, ok := eventByName[event]; ok {
		return e.canBlock
	}
	return strings.HasPrefix(event, "Pre")
}

// UnknownEventError is returned for an event name that is neither known nor declared.
type UnknownEventError struct {
	Name       string
	Suggestion string
}

func (e *UnknownEventError) Error() string {
	msg := "unknown event " + quote(e.Name)
	if e.Suggestion != "" {
		msg += "; did you mean " + quote(e.Suggestion) + "?"
	} else {
		msg += ` (declare it in "customEvents" to use a custom event)`
	}
	return msg
}

// ResolveEvent is Canonical with an error that suggests the nearest known name.
func ResolveEvent(name string, custom []string) (string, error) {
	if c, ok := Canonical(name, custom); ok {
		return c, nil
	}
	return "", &UnknownEventError{Name: name, Suggestion: Suggest(name, append(KnownEventNames(), custom...))}
}

func quote(s string) string { return `"` + s + `"` }

// Suggest returns the candidate nearest to s (case-insensitive edit distance), or "" when none is
// close enough to be a plausible typo.
func Suggest(s string, candidates []string) string {
	best, bestDist := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(2, len(s)/3)
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
