// Package sessions owns the session records of agent-hooks under <AUTOAGENT_HOME>/sessions: one
// JSON file per session (the AutoAgent seed's format), the `current` link, the per-session audit
// trail (<id>.events.jsonl, one line per hook execution), the per-session state that configuration
// formats keep across events (<id>.<name>.json, see State) and the file locks that serialise every
// write, so that several agent-hooks processes can update one session at once.
//
// The package knows nothing of hooks or of the command line: callers hand it a directory, the
// values to record, and (in tests) a clock and a source of randomness.
package sessions

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// Status of a session.
type Status string

// The statuses a session can have (SPEC.md section 7).
const (
	StatusActive      Status = "active"
	StatusCompleted   Status = "completed"
	StatusInterrupted Status = "interrupted"
	StatusFailed      Status = "failed"
)

// ParseStatus accepts one of the four statuses.
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case StatusActive, StatusCompleted, StatusInterrupted, StatusFailed:
		return st, nil
	}
	return "", fmt.Errorf("invalid session status %q (want active, completed, interrupted or failed)", s)
}

// Session is one session record. The JSON field names are those of the AutoAgent seed; fields
// this package does not know (written by another tool) are kept through a read-modify-write.
type Session struct {
	ID string `json:"id"`
	// Name is the session's human name (`session start --name`), what the seed loops call the
	// session: iteratr's {{session}}, agent-pipelines' ${SESSION}.
	Name            string    `json:"name,omitempty"`
	StartTime       time.Time `json:"startTime"`
	EndTime         time.Time `json:"endTime,omitzero"`
	Workspace       string    `json:"workspace"`
	Command         string    `json:"command"`
	Args            []string  `json:"args"`
	IssuesPlanned   []int     `json:"issuesPlanned"`
	IssuesCompleted []int     `json:"issuesCompleted"`
	IssuesFailed    []int     `json:"issuesFailed"`
	CurrentIssue    *int      `json:"currentIssue,omitempty"`
	Status          Status    `json:"status"`
	// EndReason says why a session ended other than by `session end` or the agent's
	// SessionEnd: "idle" for one ended after its idle limit (Store.EndIdle). Empty otherwise.
	EndReason string   `json:"endReason,omitempty"`
	Provider  string   `json:"provider"`
	Metadata  Metadata `json:"metadata"`
	// StopBlockCount is the number of consecutive blocked Stop events (agent-hooks' own field).
	StopBlockCount int `json:"stopBlockCount,omitempty"`
	// SubagentStopBlockCount is the same count for SubagentStop.
	SubagentStopBlockCount int `json:"subagentStopBlockCount,omitempty"`
	// Agent is the coding agent whose session this is ("claude", "codex"), and AgentSessionID
	// the agent's own id for it, when the session was opened by `agent-hooks hook <agent>`.
	Agent          string `json:"agent,omitempty"`
	AgentSessionID string `json:"agentSessionId,omitempty"`
	// FilesModified are the files the agent's edit tools changed, relative to the workspace, in
	// the order first changed.
	FilesModified []string `json:"filesModified,omitempty"`
	// AuditHead is the head of the audit trail (see ChainStart) as the last append noted it when
	// the record was written, or as noted since, when Store.Get read the record.
	AuditHead *AuditHead `json:"auditHead,omitempty"`

	extra map[string]json.RawMessage
}

// Metadata is the seed's optional metadata object.
type Metadata struct {
	GitBranch     string `json:"gitBranch,omitempty"`
	GitCommit     string `json:"gitCommit,omitempty"`
	TotalDuration int64  `json:"totalDuration,omitempty"` // milliseconds

	extra map[string]json.RawMessage
}

// Active reports whether the session is still running.
func (s *Session) Active() bool { return s.Status == StatusActive }

// PlanIssue adds n to IssuesPlanned (once).
func (s *Session) PlanIssue(n int) { s.IssuesPlanned = addIssue(s.IssuesPlanned, n) }

// StartIssue plans n and makes it the current issue.
func (s *Session) StartIssue(n int) {
	s.PlanIssue(n)
	s.CurrentIssue = &n
}

// FinishIssue adds n to IssuesCompleted or IssuesFailed (moving it out of the other list, so an
// issue retried after a failure ends up in one list only) and clears the current issue.
func (s *Session) FinishIssue(n int, success bool) {
	s.IssuesPlanned = addIssue(s.IssuesPlanned, n)
	if success {
		s.IssuesCompleted = addIssue(s.IssuesCompleted, n)
		s.IssuesFailed = removeIssue(s.IssuesFailed, n)
	} else {
		s.IssuesFailed = addIssue(s.IssuesFailed, n)
		s.IssuesCompleted = removeIssue(s.IssuesCompleted, n)
	}
	s.CurrentIssue = nil
}

// AddFiles adds paths to FilesModified (each once) and reports whether any was new.
func (s *Session) AddFiles(paths ...string) bool {
	changed := false
	for _, p := range paths {
		if p != "" && !slices.Contains(s.FilesModified, p) {
			s.FilesModified = append(s.FilesModified, p)
			changed = true
		}
	}
	return changed
}

// End sets the final status, the end time and metadata.totalDuration.
func (s *Session) End(status Status, at time.Time) {
	s.Status = status
	s.EndReason = ""
	s.EndTime = at.UTC().Truncate(time.Millisecond)
	s.Metadata.TotalDuration = max(0, s.EndTime.Sub(s.StartTime).Milliseconds())
}

func addIssue(list []int, n int) []int {
	for _, v := range list {
		if v == n {
			return list
		}
	}
	return append(list, n)
}

func removeIssue(list []int, n int) []int {
	out := list[:0]
	for _, v := range list {
		if v != n {
			out = append(out, v)
		}
	}
	return out
}

// ValidName reports whether name is a valid session name: 1 to 64 letters, digits, _ and -, as
// iteratr and agent-pipelines require of theirs.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// ValidID reports whether id has the form session-<unixms>-<random [a-z0-9]>. The seed's generator
// can yield fewer than six random characters, so ids written by it are accepted too.
func ValidID(id string) bool {
	_, ok := idTime(id)
	return ok
}

// idTime returns the unix milliseconds in an id (ok false for an invalid id). It is written out
// rather than a regexp, and takes the bytes of a directory entry as they are read, because
// `session list` checks every name in the folder.
func idTime[S ~string | ~[]byte](id S) (ms int64, ok bool) {
	const prefix = "session-"
	if len(id) <= len(prefix) || string(id[:len(prefix)]) != prefix {
		return 0, false
	}
	rest := id[len(prefix):]
	dash := -1
	for i := 0; i < len(rest); i++ {
		if rest[i] == '-' {
			dash = i
			break
		}
	}
	if dash < 0 {
		return 0, false
	}
	digits, random := rest[:dash], rest[dash+1:]
	if len(digits) == 0 || len(digits) > 18 || len(random) == 0 || len(random) > 32 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		ms = ms*10 + int64(c-'0')
	}
	for i := 0; i < len(random); i++ {
		if c := random[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return 0, false
		}
	}
	return ms, true
}

type sessionFields Session // the struct without its methods, for the default encoding

// MarshalJSON writes the known fields, then any unknown fields that were read.
func (s Session) MarshalJSON() ([]byte, error) {
	if s.Args == nil {
		s.Args = []string{}
	}
	for _, l := range []*[]int{&s.IssuesPlanned, &s.IssuesCompleted, &s.IssuesFailed} {
		if *l == nil {
			*l = []int{}
		}
	}
	return marshalWithExtra(sessionFields(s), s.extra)
}

// UnmarshalJSON reads the known fields and keeps the others (decodeSession).
func (s *Session) UnmarshalJSON(data []byte) error {
	doc, err := jsonpos.Parse(data)
	if err != nil {
		return err
	}
	return decodeSession(doc, doc.Root, s)
}

type metadataFields Metadata

// MarshalJSON writes the known fields, then any unknown fields that were read.
func (m Metadata) MarshalJSON() ([]byte, error) {
	return marshalWithExtra(metadataFields(m), m.extra)
}

// UnmarshalJSON reads the known fields and keeps the others (decodeMetadata).
func (m *Metadata) UnmarshalJSON(data []byte) error {
	doc, err := jsonpos.Parse(data)
	if err != nil {
		return err
	}
	return decodeMetadata(doc, doc.Root, m)
}

// marshalWithExtra encodes v (a struct) and appends the extra keys it does not already have.
func marshalWithExtra(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var known map[string]json.RawMessage
	if err := json.Unmarshal(b, &known); err != nil {
		return nil, err
	}
	for k, raw := range extra {
		if _, ok := known[k]; !ok {
			known[k] = raw
		}
	}
	return json.Marshal(known)
}
