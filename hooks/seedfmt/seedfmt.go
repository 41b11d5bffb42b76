// Package seedfmt holds what the seed formats (fresher, iteratr, agent-pipelines, babysitter)
// share: the one documented mapping from an event's payload to the variables their hooks expect,
// and the few helpers each format's loader and dialect would otherwise write again.
//
// # The seed-variable mapping
//
// Every seed hook gets its values from the payload of the event being fired, through Table:
//
//	payload key      fresher env               agent-pipelines env / ${VAR}        iteratr
//	                                           (each LOOP_X also as PIPELINE_X)
//	iteration        FRESHER_ITERATION (0)     LOOP_ITERATION ${ITERATION}         {{iteration}}
//	maxIterations    FRESHER_MAX_ITERATIONS    LOOP_MAX_ITERATIONS ${MAX_ITERATIONS}
//	mode             FRESHER_MODE
//	status                                     LOOP_STATUS ${STATUS}
//	error                                      LOOP_ERROR ${ERROR}                 {{error}}
//	taskId                                                                         {{task_id}}
//	taskContent                                                                    {{task_content}}
//	progressFile                               LOOP_PROGRESS_FILE ${PROGRESS_FILE}
//	stateFile                                  LOOP_STATE_FILE ${STATE_FILE}
//	loopType                                   LOOP_TYPE ${LOOP_TYPE}
//	finishType       FRESHER_FINISH_TYPE
//	duration (ms)    FRESHER_DURATION (0; whole s) LOOP_DURATION ${DURATION} (s)
//	durationSeconds  (the same, for callers that count in seconds; wins over duration)
//	logDir           FRESHER_LOG_DIR (default <workspace>/.fresher/logs)
//	startedAt        FRESHER_STARTED_AT
//	planFile         FRESHER_PLAN_FILE
//	specDir          FRESHER_SPEC_DIR
//	lastExitCode     FRESHER_LAST_EXIT_CODE (0)
//	lastDuration     FRESHER_LAST_DURATION
//	commitsMade      FRESHER_COMMITS_MADE
//	totalIterations  FRESHER_TOTAL_ITERATIONS  (else iteration; 0)
//	totalCommits     FRESHER_TOTAL_COMMITS     (else commitsMade; 0)
//	lastCommitSha    FRESHER_LAST_COMMIT_SHA   (else commitSha)
//
// The session name (SessionName: --data session=…, else the payload's sessionName, else the
// session id) feeds LOOP_SESSION, PIPELINE_SESSION, ${SESSION}, ${SESSION_NAME} and iteratr's
// {{session}}; the workspace feeds
// FRESHER_PROJECT_DIR and REPO_ROOT. A variable whose payload key is absent is not set, so a value
// the user exported (FRESHER_MODE=building agent-hooks run started) still reaches the hook —
// except the five fresher always sets, marked (0), which are then 0 as in fresher.
package seedfmt

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// Var is one row of the mapping: a payload value and the names it goes by in each seed format.
type Var struct {
	// Keys are the payload keys read, the first present one wins.
	Keys []string
	// Fresher is the FRESHER_* environment variable ("" if fresher has none).
	Fresher string
	// Loop is the agent-pipelines LOOP_* environment variable.
	Loop string
	// LoopShell is the shell variable an agent-pipelines stage.yaml command refers to as ${NAME}.
	LoopShell string
	// Iteratr is the iteratr template variable, used as {{name}}.
	Iteratr string
	// Millis names the key among Keys whose value is in milliseconds (the native protocol's
	// duration) while the seeds' variable is in seconds: it is divided by 1000.
	Millis string
	// FresherAlways: fresher always sets the variable (its state's value, 0 before the loop
	// counts anything), so it is "0" when the payload has no value.
	FresherAlways bool
	// FresherWhole: fresher gives whole seconds (chrono's num_seconds), so a fraction is cut.
	FresherWhole bool
}

// Table is the seed-variable mapping, documented in the package comment.
var Table = []Var{
	{Keys: []string{"iteration"}, Fresher: "FRESHER_ITERATION", Loop: "LOOP_ITERATION", LoopShell: "ITERATION", Iteratr: "iteration", FresherAlways: true},
	{Keys: []string{"maxIterations"}, Fresher: "FRESHER_MAX_ITERATIONS", Loop: "LOOP_MAX_ITERATIONS", LoopShell: "MAX_ITERATIONS"},
	{Keys: []string{"mode"}, Fresher: "FRESHER_MODE"},
	{Keys: []string{"status"}, Loop: "LOOP_STATUS", LoopShell: "STATUS"},
	{Keys: []string{"error"}, Loop: "LOOP_ERROR", LoopShell: "ERROR", Iteratr: "error"},
	{Keys: []string{"taskId"}, Iteratr: "task_id"},
	{Keys: []string{"taskContent"}, Iteratr: "task_content"},
	{Keys: []string{"progressFile"}, Loop: "LOOP_PROGRESS_FILE", LoopShell: "PROGRESS_FILE"},
	{Keys: []string{"stateFile"}, Loop: "LOOP_STATE_FILE", LoopShell: "STATE_FILE"},
	{Keys: []string{"loopType"}, Loop: "LOOP_TYPE", LoopShell: "LOOP_TYPE"},
	{Keys: []string{"finishType"}, Fresher: "FRESHER_FINISH_TYPE"},
	{Keys: []string{"durationSeconds", "duration"}, Millis: "duration", Fresher: "FRESHER_DURATION", Loop: "LOOP_DURATION", LoopShell: "DURATION", FresherAlways: true, FresherWhole: true},
	{Keys: []string{"logDir"}, Fresher: "FRESHER_LOG_DIR"},
	{Keys: []string{"startedAt"}, Fresher: "FRESHER_STARTED_AT"},
	{Keys: []string{"planFile"}, Fresher: "FRESHER_PLAN_FILE"},
	{Keys: []string{"specDir"}, Fresher: "FRESHER_SPEC_DIR"},
	{Keys: []string{"lastExitCode"}, Fresher: "FRESHER_LAST_EXIT_CODE", FresherAlways: true},
	{Keys: []string{"lastDuration"}, Fresher: "FRESHER_LAST_DURATION"},
	{Keys: []string{"commitsMade"}, Fresher: "FRESHER_COMMITS_MADE"},
	{Keys: []string{"totalIterations", "iteration"}, Fresher: "FRESHER_TOTAL_ITERATIONS", FresherAlways: true},
	{Keys: []string{"totalCommits", "commitsMade"}, Fresher: "FRESHER_TOTAL_COMMITS", FresherAlways: true},
	{Keys: []string{"lastCommitSha", "commitSha"}, Fresher: "FRESHER_LAST_COMMIT_SHA"},
}

// Value returns the payload value of v as text, and whether any of its keys is present.
func (v Var) Value(p hooks.Payload) (string, bool) {
	for _, k := range v.Keys {
		if x, ok := p[k]; ok && x != nil {
			if k == v.Millis {
				if ms, err := strconv.ParseFloat(template.FormatValue(x), 64); err == nil {
					return strconv.FormatFloat(ms/1000, 'f', -1, 64), true
				}
			}
			return template.FormatValue(x), true
		}
	}
	return "", false
}

// FresherEnv is the FRESHER_* environment of a fresher hook.
func FresherEnv(p hooks.Payload, workspace string) []string {
	env := []string{"FRESHER_PROJECT_DIR=" + workspace}
	logDir := false
	for _, v := range Table {
		if v.Fresher == "" {
			continue
		}
		s, ok := v.Value(p)
		switch {
		case ok && v.FresherWhole:
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				s = strconv.FormatFloat(math.Trunc(f), 'f', -1, 64)
			}
		case !ok && v.FresherAlways:
			s, ok = "0", true
		}
		if ok {
			env = append(env, v.Fresher+"="+s)
			logDir = logDir || v.Fresher == "FRESHER_LOG_DIR"
		}
	}
	if !logDir {
		env = append(env, "FRESHER_LOG_DIR="+filepath.Join(workspace, ".fresher", "logs"))
	}
	return env
}

// LoopEnv is the environment of an agent-pipelines hook in session (its name): the PIPELINE_*
// variables of the current hooks plan, their former LOOP_* names, the shell variables its ${VAR}
// references name, and the engine's own CLAUDE_PIPELINE_SESSION and CLAUDE_PIPELINE_TYPE.
func LoopEnv(p hooks.Payload, session string) []string {
	env := []string{"LOOP_SESSION=" + session, "PIPELINE_SESSION=" + session, "SESSION=" + session,
		"SESSION_NAME=" + session, "CLAUDE_PIPELINE_SESSION=" + session}
	for _, v := range Table {
		s, ok := v.Value(p)
		if !ok {
			continue
		}
		if v.Loop != "" {
			env = append(env, v.Loop+"="+s, "PIPELINE_"+strings.TrimPrefix(v.Loop, "LOOP_")+"="+s)
		}
		if v.Loop == "LOOP_TYPE" {
			env = append(env, "CLAUDE_PIPELINE_TYPE="+s)
		}
		if v.LoopShell != "" && v.LoopShell != v.Loop {
			env = append(env, v.LoopShell+"="+s)
		}
	}
	return env
}

// SessionName is the name the seed loops give a session (iteratr's {{session}}, agent-pipelines'
// ${SESSION}): the payload's "session" (`--data session=…`), else its sessionName (the name the
// session was started with, `session start --name`), else the session id.
func SessionName(p hooks.Payload, sessionID string) string {
	for _, k := range []string{"session", hooks.KeySessionName} {
		if s := template.FormatValue(p[k]); s != "" {
			return s
		}
	}
	return sessionID
}

// IteratrVars are the values of iteratr's template variables; a variable the payload does not
// carry is empty, as in iteratr, where an unset variable expands to nothing.
func IteratrVars(p hooks.Payload, sessionID string) hooks.Payload {
	vars := hooks.Payload{"session": sessionID}
	for _, v := range Table {
		if v.Iteratr == "" {
			continue
		}
		s, _ := v.Value(p)
		vars[v.Iteratr] = s
	}
	return vars
}

// RepoRootEnv is babysitter's REPO_ROOT.
func RepoRootEnv(workspace string) string { return "REPO_ROOT=" + workspace }
