package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
	waitprogress "github.com/autoagent/agent-hooks/internal/progress"
)

// ApprovalProvider is the "github" provider of the approval hook type: it asks for approval in
// a pull-request comment and waits for an approving review or an /approve comment (or a
// rejection) from someone allowed to decide.
type ApprovalProvider struct {
	Options Options
}

type approvalConfig struct {
	approval.Common
	PollInterval      *hooks.Duration `json:"pollInterval"`
	MinApprovals      *int            `json:"minApprovals"`
	Approvers         []string        `json:"approvers"`
	RequireHeadCommit *bool           `json:"requireHeadCommit"`
	Wait              *bool           `json:"wait"`
	Key               string          `json:"key"`
	AllowSelfApproval bool            `json:"allowSelfApproval"`
	ApproverTeams     []string        `json:"approverTeams"`
	ApproveCommands   []string        `json:"approveCommands"`
	RejectCommands    []string        `json:"rejectCommands"`
}

type approvalRunner struct {
	opts          Options
	message       string
	key           string
	interval      time.Duration
	minApprovals  int
	approvers     []string
	requireHead   bool
	timeoutAction string
	wait          bool
	allowSelf     bool     // the pull request's author and the run's initiator may decide
	teams         []Team   // only their members (and approvers) decide, when set
	approveWords  []string // the commands that approve, lower case: /approve and approveCommands
	rejectWords   []string // the commands that reject: /reject and rejectCommands
}

// Configure implements approval.Provider.
func (p ApprovalProvider) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error) {
	var c approvalConfig
	if err := approval.DecodeOptions(options, &c, &c.Common); err != nil {
		return nil, err
	}
	r := &approvalRunner{
		opts:          p.Options,
		message:       c.Message,
		key:           c.Key,
		interval:      hooks.DefaultGitHubPollInterval,
		minApprovals:  1,
		requireHead:   true,
		timeoutAction: c.TimeoutAction,
		wait:          true,
		allowSelf:     c.AllowSelfApproval,
	}
	for i, s := range c.ApproverTeams {
		t, err := ParseTeam(s)
		if err != nil {
			return nil, fmt.Errorf("approverTeams[%d]: %w", i, err)
		}
		r.teams = append(r.teams, t)
	}
	var err error
	if r.approveWords, r.rejectWords, err = commandWords(c.ApproveCommands, c.RejectCommands); err != nil {
		return nil, err
	}
	if c.PollInterval != nil {
		if *c.PollInterval <= 0 {
			return nil, errors.New(`pollInterval: must be a positive number of milliseconds or a duration such as "15s"`)
		}
		r.interval = time.Duration(*c.PollInterval)
	}
	if c.MinApprovals != nil {
		if *c.MinApprovals < 1 {
			return nil, errors.New("minApprovals: must be at least 1")
		}
		r.minApprovals = *c.MinApprovals
	}
	for i, a := range c.Approvers {
		a = strings.TrimPrefix(strings.TrimSpace(a), "@")
		if a == "" {
			return nil, fmt.Errorf("approvers[%d]: empty login", i)
		}
		r.approvers = append(r.approvers, a)
	}
	if c.RequireHeadCommit != nil {
		r.requireHead = *c.RequireHeadCommit
	}
	if c.Wait != nil {
		r.wait = *c.Wait
	}
	return r, nil
}

// Run implements hooks.Task.
func (r *approvalRunner) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	start := r.opts.now()
	c, err := NewClientFromEnv(inv.Getenv, r.opts)
	if err != nil {
		return approval.Undecided("github", err, nil)
	}
	t, err := ResolveTarget(ctx, c, inv.Getenv, inv.Workspace, inv.Payload)
	if err != nil {
		return approval.Undecided("github", err, nil)
	}
	timeout := inv.Hook.Timeout
	if timeout <= 0 {
		timeout = hooks.DefaultTimeout
	}
	deadline := approval.DecideBy(ctx, inv.Hook, start)
	key := inv.Event + ":" + inv.Hook.Name
	if r.key != "" {
		key = template.ExpandMessage(r.key, inv.Payload)
	}
	a := &approvalRun{approvalRunner: r, c: c, t: t, inv: inv, key: markerKey(key), timeout: timeout, deadline: deadline,
		actor: runActor(inv.Getenv)}
	if !answerEvents[inv.Getenv("GITHUB_EVENT_NAME")] && a.actor.login != "" {
		a.initiators = append(a.initiators, a.actor)
	}
	a.text = a.requestText()
	a.bound = approval.ToolCallOf(inv.Payload) != nil
	if a.id, err = approval.RequestID(a.text, inv.Payload); err != nil {
		return approval.Undecided("github", err, nil)
	}
	return a.run(ctx)
}

// approvalRun is one execution of a github approval hook.
type approvalRun struct {
	*approvalRunner
	c        *Client
	t        Target
	inv      *hooks.Invocation
	key      string // which request of the pull request this hook makes (event and hook, or "key")
	text     string // the request as rendered for the approver
	id       string // approval.RequestID of text and payload
	timeout  time.Duration
	deadline time.Time

	head     string
	prURL    string
	headRepo string  // full name of the repository the pull request's commits come from
	author   account // who opened the pull request
	last     verdict // of the latest check that succeeded

	// The request comment this run waits on (see approvalrequest.go): the comment, the fields its
	// marker records, the body it was posted with, and its updated_at when last found unchanged.
	request *gh.IssueComment
	req     requestFields
	body    string
	seen    time.Time
	// voteEdits are the edits GitHub recorded of command comments, by comment id, as of the
	// updated_at and body they were read with.
	voteEdits map[int64]voteEdits
	// closed is set while a closed request is read for a rejection that still holds: it is not
	// checked for edits (it was edited: closed) and approves nothing.
	closed bool

	actor      account   // who started this run (GITHUB_ACTOR), recorded in a request it posts
	initiators []account // who started the work asked about: never decide unless allowSelf

	// bound is set for a request about an agent's tool call: its request has a ref, so an
	// approving command counts only when it names the request (/approve <ref>), and approving
	// reviews do not count, because neither says which call it approves, and the agent may have
	// asked about another call since the approver read the request. A request that replaces
	// one that cannot be trusted has a ref too (requestFields.ref).
	bound bool
}

// voteEdits is what GitHub recorded of a command comment's edits, as of its updated_at and body.
type voteEdits struct {
	updated time.Time
	body    string
	edits   *CommentEdits // nil: the comment is gone
}

// answerEvents are the events an answer itself starts: their GITHUB_ACTOR is a reviewer or
// commenter answering a request, not who started the work asked about.
var answerEvents = map[string]bool{"pull_request_review": true, "pull_request_review_comment": true, "issue_comment": true}

// runActor is the account that started the workflow run (GITHUB_ACTOR and GITHUB_ACTOR_ID), or
// nobody outside Actions.
func runActor(getenv func(string) string) account {
	id, _ := strconv.ParseInt(getenv("GITHUB_ACTOR_ID"), 10, 64)
	// Logins are letters, digits, hyphens and an App's "[bot]": nothing that could end the marker.
	login := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`"<>`, r) || r <= ' ' {
			return -1
		}
		return r
	}, getenv("GITHUB_ACTOR"))
	return account{login: login, id: id}
}

// vote is one review or command comment that counts toward the decision.
type vote struct {
	user    *gh.User
	login   string
	approve bool
	via     string // "review" or "comment"
	command string // the comment's command, lower case
	url     string
	reason  string
	at      time.Time
}

// verdict is the state of a request after one check.
type verdict struct {
	decided   bool
	approve   bool
	decider   *vote
	approvals []string   // logins whose latest vote approves
	approving []*vote    // those votes, oldest first
	ignored   []string   // why some votes did not count
	untrusted *untrusted // why the request approves nothing, when it cannot be trusted
}

func (a *approvalRun) run(ctx context.Context) hooks.Outcome {
	if err := a.refreshPR(ctx); err != nil {
		return a.failure(ctx, err)
	}
	for _, t := range a.teams {
		// A team the token cannot read would leave every vote undecidable: say so now.
		if err := a.c.CheckTeam(ctx, t); err != nil {
			return a.failure(ctx, err)
		}
	}
	if out, done, err := a.findOrPostRequest(ctx); err != nil {
		return a.failure(ctx, err)
	} else if done {
		return out
	}
	status := waitprogress.Start(a.inv.Progress, "approval in "+a.t.String(), a.request.GetHTMLURL())
	defer status.Done()
	var last approval.LastCheck
	errorsInARow := 0
	for first := true; ; first = false {
		if !first {
			// No check starts at or after the deadline. A check that fails leaves the request
			// undecided; one that the deadline (ours or the engine's) cuts short says nothing,
			// and the check before it decides how the wait ends (approval.LastCheck).
			now := a.opts.now()
			if !now.Before(a.deadline) {
				return a.timedOut(ctx, last.Err())
			}
			if err := a.opts.sleep(ctx, min(a.nextPoll(now), a.deadline.Sub(now))); err != nil {
				return a.stopped(ctx, last.Err())
			}
			if !a.opts.now().Before(a.deadline) {
				return a.timedOut(ctx, last.Err())
			}
		}
		v, err := a.poll(ctx, first)
		cutShort := err != nil && (ctx.Err() != nil || !a.opts.now().Before(a.deadline))
		last.Record(err, cutShort)
		switch {
		case err == nil && v.untrusted != nil:
			return a.distrust(ctx, v.untrusted, a.request, a.req.ref, requestFields{key: a.key, head: a.head, id: a.id, actor: a.req.actor})
		case err == nil:
			errorsInARow = 0
			a.last = v
			status.Detail(fmt.Sprintf("%d of %d approvals", len(v.approvals), a.minApprovals))
			if v.decided {
				return a.finish(ctx, v)
			}
			if !a.wait {
				return a.pending(v)
			}
		case ctx.Err() != nil:
			return a.stopped(ctx, last.Err())
		case cutShort:
			return a.timedOut(ctx, last.Err())
		default:
			var apiErr *APIError
			errorsInARow++
			if !a.wait || errorsInARow >= 3 || errors.As(err, &apiErr) && apiErr.Status >= 400 && apiErr.Status < 500 {
				return a.undecided(err)
			}
			progress(a.inv.Stderr, "approval: %v (will retry)", err)
		}
	}
}

// poll checks the request once; every check but the first reads the pull request again, for
// its head commit.
func (a *approvalRun) poll(ctx context.Context, first bool) (verdict, error) {
	if !first {
		if err := a.refreshPR(ctx); err != nil {
			return verdict{}, err
		}
	}
	return a.check(ctx)
}

// failure is the outcome of a request that could not be made: stopped if the run was, else
// undecided.
func (a *approvalRun) failure(ctx context.Context, err error) hooks.Outcome {
	if ctx.Err() != nil {
		return a.stopped(ctx, err)
	}
	return a.undecided(err)
}

// pollCost is about how many requests one check makes (pull request, comments, reviews and a
// permission or two); when fewer remain in the rate-limit window, the next check waits for the
// window to reset instead of running into the limit.
const pollCost = 6

// nextPoll is the wait before the next check: the poll interval, or longer when the rate limit
// GitHub reported is nearly used up.
func (a *approvalRun) nextPoll(now time.Time) time.Duration {
	r := a.c.Rate()
	if r.Limit == 0 || r.Remaining >= pollCost || !r.Reset.After(now) {
		return a.interval
	}
	wait := max(a.interval, r.Reset.Sub(now))
	progress(a.inv.Stderr, "approval: %d GitHub API requests left until %s; next check then", r.Remaining, r.Reset.Format(time.RFC3339))
	return wait
}

func (a *approvalRun) refreshPR(ctx context.Context) error {
	pr, err := a.c.PullRequest(ctx, a.t)
	if err != nil {
		return err
	}
	if a.head != "" && a.head != pr.GetHead().GetSHA() {
		progress(a.inv.Stderr, "approval: new commits on %s (head %s); only reviews of the new head count", a.t, short(pr.GetHead().GetSHA()))
	}
	a.head, a.prURL, a.headRepo = pr.GetHead().GetSHA(), pr.GetHTMLURL(), pr.GetHead().GetRepo().GetFullName()
	a.author = account{login: pr.GetUser().GetLogin(), id: pr.GetUser().GetID()}
	return nil
}

// check reads the reviews and comments made since the request and decides if it can. The request
// must still be as it was posted, and a command comment counts only as its author posted it:
// GitHub's record of their edits is read for the request whenever the comments list shows it
// changed (or not at all: the list may leave it out) and before any decision, and once for each
// command comment (again when it changes).
func (a *approvalRun) check(ctx context.Context) (verdict, error) {
	var v verdict
	since := a.request.GetCreatedAt().Time
	comments, err := a.c.Comments(ctx, a.t, since)
	if err != nil {
		return v, err
	}
	reviews, err := a.c.Reviews(ctx, a.t)
	if err != nil {
		return v, err
	}
	type command struct {
		cm      *gh.IssueComment
		word    string
		approve bool
		reason  string
	}
	var (
		commands []command
		unknown  []string // node ids of command comments whose edits are not known
		listed   *gh.IssueComment
	)
	for _, cm := range comments {
		if cm.GetID() == a.request.GetID() {
			listed = cm
			continue
		}
		if cm.GetID() <= a.request.GetID() || cm.GetCreatedAt().Before(since) {
			continue
		}
		if self, err := a.c.IsSelf(ctx, cm.GetUser()); err != nil || self {
			if err != nil {
				return v, err
			}
			continue
		}
		word, approve, reason, ok := a.parseCommand(cm.GetBody())
		if !ok {
			continue
		}
		commands = append(commands, command{cm, word, approve, reason})
		if known, ok := a.voteEdits[cm.GetID()]; !ok || known.body != cm.GetBody() || !known.updated.Equal(cm.GetUpdatedAt().Time) {
			unknown = append(unknown, cm.GetNodeID())
		}
	}
	verified := false
	if listed == nil || listed.GetBody() != a.body || !listed.GetUpdatedAt().Time.Equal(a.seen) || len(unknown) > 0 {
		u, edits, err := a.verify(ctx, unknown...)
		if err != nil {
			return v, err
		}
		if u != nil && !a.closed {
			return verdict{untrusted: u}, nil
		}
		verified = true
		if listed != nil {
			a.seen = listed.GetUpdatedAt().Time // moved without an edit
		}
		if a.voteEdits == nil {
			a.voteEdits = map[int64]voteEdits{}
		}
		for _, c := range commands {
			if slices.Contains(unknown, c.cm.GetNodeID()) {
				a.voteEdits[c.cm.GetID()] = voteEdits{updated: c.cm.GetUpdatedAt().Time, body: c.cm.GetBody(), edits: edits[c.cm.GetNodeID()]}
			}
		}
	}
	var votes []vote
	for _, c := range commands {
		cm, login, reason := c.cm, c.cm.GetUser().GetLogin(), c.reason
		edits := a.voteEdits[cm.GetID()].edits
		switch {
		case edits == nil:
			continue // deleted since it was listed
		case edits.Edited() && c.approve:
			// An edited rejection still rejects: blocking on it fails closed.
			by := "@" + edits.Editor
			switch {
			case edits.Editor == "":
				by = "an account GitHub no longer knows"
			case sameLogin(edits.Editor, login):
				by = "its author " + by
			}
			v.ignored = append(v.ignored, fmt.Sprintf("@%s's %s was edited after it was posted (last by %s): a vote counts only as its author posted it; to vote, post a new comment or a review",
				login, c.word, by))
			continue
		}
		if ref := a.req.ref; ref != "" {
			named, rest, _ := strings.Cut(reason, " ")
			switch {
			case strings.EqualFold(named, ref):
				reason = strings.TrimSpace(rest)
			case c.approve || refPattern().MatchString(named):
				v.ignored = append(v.ignored, fmt.Sprintf("@%s's %s does not name this request (%s %s)", login, c.word, c.word, ref))
				continue
			}
			if c.approve {
				reason = ""
			}
		}
		votes = append(votes, vote{user: cm.GetUser(), login: login, approve: c.approve, via: "comment", command: c.word, url: cm.GetHTMLURL(), reason: reason, at: cm.GetCreatedAt().Time})
	}
	for _, rv := range reviews {
		login := rv.GetUser().GetLogin()
		if rv.GetSubmittedAt().Before(since) {
			continue
		}
		if self, err := a.c.IsSelf(ctx, rv.GetUser()); err != nil || self {
			if err != nil {
				return v, err
			}
			continue
		}
		switch rv.GetState() {
		case "APPROVED":
			switch {
			case a.req.ref != "" && a.bound:
				v.ignored = append(v.ignored, fmt.Sprintf("@%s's approving review does not name a tool call (%s %s does)", login, a.approveWords[0], a.req.ref))
				continue
			case a.req.ref != "":
				v.ignored = append(v.ignored, fmt.Sprintf("@%s's approving review does not name this request, which replaces one that cannot be trusted (%s %s does)", login, a.approveWords[0], a.req.ref))
				continue
			}
			if a.requireHead && !strings.EqualFold(rv.GetCommitID(), a.head) {
				v.ignored = append(v.ignored, fmt.Sprintf("@%s approved commit %s, not the head %s", login, short(rv.GetCommitID()), short(a.head)))
				continue
			}
			votes = append(votes, vote{user: rv.GetUser(), login: login, approve: true, via: "review", url: rv.GetHTMLURL(), at: rv.GetSubmittedAt().Time})
		case "CHANGES_REQUESTED":
			reason := strings.TrimSpace(rv.GetBody())
			votes = append(votes, vote{user: rv.GetUser(), login: login, via: "review", url: rv.GetHTMLURL(), reason: reason, at: rv.GetSubmittedAt().Time})
		}
	}
	sort.SliceStable(votes, func(i, j int) bool { return votes[i].at.Before(votes[j].at) })

	// The latest vote of each authorised user counts.
	latest := map[string]int{}
	var order []string
	for i, vt := range votes {
		key := strings.ToLower(vt.login)
		ok, why, err := a.authorised(ctx, vt.user)
		if err != nil {
			return v, err
		}
		if !ok {
			v.ignored = append(v.ignored, fmt.Sprintf("@%s %s", vt.login, why))
			continue
		}
		if _, seen := latest[key]; !seen {
			order = append(order, key)
		}
		latest[key] = i
	}
	var approvals []*vote
	for _, key := range order {
		vt := &votes[latest[key]]
		if !vt.approve {
			if v.decider == nil || vt.at.After(v.decider.at) {
				v.decider = vt
			}
			continue
		}
		approvals = append(approvals, vt)
	}
	sort.SliceStable(approvals, func(i, j int) bool { return approvals[i].at.Before(approvals[j].at) })
	for _, vt := range approvals {
		v.approvals = append(v.approvals, vt.login)
	}
	v.approving = approvals
	switch {
	case v.decider != nil:
		v.decided = true
	case len(approvals) >= a.minApprovals:
		v.decided, v.approve, v.decider = true, true, approvals[a.minApprovals-1]
	}
	if a.closed && v.approve {
		v.decided, v.approve, v.decider = false, false, nil // a closed request approves nothing
	}
	if v.decided && !verified && !a.closed {
		// The votes were listed before this: a request still as posted now was so when they were
		// cast.
		u, _, err := a.verify(ctx)
		if err != nil {
			return v, err
		}
		if u != nil {
			return verdict{untrusted: u}, nil
		}
	}
	return v, nil
}

// authorised says whether u may decide: not the pull request's author nor who started the work
// asked about (unless allowSelfApproval), and listed in approvers, or a member of one of
// approverTeams when there are any, else with write, maintain or admin permission on the
// repository.
func (a *approvalRun) authorised(ctx context.Context, u *gh.User) (bool, string, error) {
	login := u.GetLogin()
	if !a.allowSelf {
		if a.author.login != "" && a.author.is(u) {
			return false, "opened the pull request (allowSelfApproval is off)", nil
		}
		for _, in := range a.initiators {
			if in.is(u) {
				return false, "started the workflow run that asks for approval (GITHUB_ACTOR; allowSelfApproval is off)", nil
			}
		}
	}
	for _, ap := range a.approvers {
		if sameLogin(ap, login) {
			return true, "", nil
		}
	}
	if len(a.teams) > 0 {
		var names []string
		for _, t := range a.teams {
			member, err := a.c.TeamMember(ctx, t, login)
			if err != nil || member {
				return member, "", err
			}
			names = append(names, t.String())
		}
		return false, fmt.Sprintf("is not a member of %s (approverTeams) and not in approvers", strings.Join(names, ", ")), nil
	}
	perm, err := a.c.Permission(ctx, a.t, login)
	if err != nil {
		return false, "", err
	}
	switch perm {
	case "admin", "maintain", "write":
		return true, "", nil
	}
	return false, fmt.Sprintf("has %s permission, not write (and is not in approvers)", perm), nil
}

// The commands every request understands, besides approveCommands and rejectCommands.
const (
	approveCommand = "/approve"
	rejectCommand  = "/reject"
)

// commandWords checks approveCommands and rejectCommands and returns every command of each
// kind, lower case: single words (a command is the first word of a comment), none of both kinds.
func commandWords(approve, reject []string) (approves, rejects []string, err error) {
	approves, rejects = []string{approveCommand}, []string{rejectCommand}
	add := func(option string, words []string, into *[]string) error {
		for i, w := range words {
			w = strings.ToLower(strings.TrimSpace(w))
			if w == "" || strings.ContainsAny(w, " \t\r\n") {
				return fmt.Errorf("%s[%d]: %q is not one word (a command is the first word of a comment)", option, i, words[i])
			}
			if !slices.Contains(*into, w) {
				*into = append(*into, w)
			}
		}
		return nil
	}
	if err := add("approveCommands", approve, &approves); err != nil {
		return nil, nil, err
	}
	if err := add("rejectCommands", reject, &rejects); err != nil {
		return nil, nil, err
	}
	for _, w := range approves {
		if slices.Contains(rejects, w) {
			return nil, nil, fmt.Errorf("approveCommands, rejectCommands: %q cannot both approve and reject", w)
		}
	}
	return approves, rejects, nil
}

// commandList shows commands to the approver: **`/approve`** (or **`/lgtm`**).
func commandList(words []string, arg string) string {
	s := fmt.Sprintf("**`%s%s`**", words[0], arg)
	if len(words) > 1 {
		var more []string
		for _, w := range words[1:] {
			more = append(more, fmt.Sprintf("**`%s%s`**", w, arg))
		}
		s += " (or " + strings.Join(more, ", ") + ")"
	}
	return s
}

// parseCommand reads an approving command and its argument (the request it names, for a
// request bound to a tool call), or a rejecting one and its reason (the rest of the comment),
// from the first word of a comment; commands are case-insensitive.
func (a *approvalRun) parseCommand(body string) (command string, approve bool, reason string, ok bool) {
	body = strings.TrimSpace(body)
	first, rest, _ := strings.Cut(body, "\n")
	first = strings.TrimSpace(first)
	word, arg, _ := strings.Cut(first, " ")
	word = strings.ToLower(word)
	switch {
	case slices.Contains(a.approveWords, word):
		return word, true, strings.TrimSpace(arg), true // the argument: the request it names
	case slices.Contains(a.rejectWords, word):
		reason = strings.TrimSpace(strings.TrimSpace(arg) + "\n" + strings.TrimSpace(rest))
		return word, false, reason, true
	}
	return "", false, "", false
}

func (a *approvalRun) details(v verdict) map[string]any {
	d := map[string]any{
		"provider":       "github",
		"repository":     a.t.Repository(),
		"pullRequest":    a.t.Number,
		"pullRequestUrl": a.prURL,
		"headSha":        a.head,
		"requestUrl":     a.request.GetHTMLURL(),
		"approvals":      append([]string{}, v.approvals...),
	}
	if len(v.ignored) > 0 {
		d["ignored"] = v.ignored
	}
	if v.decider != nil {
		d["decider"] = v.decider.login
		d["via"] = v.decider.via
		d["url"] = v.decider.url
	}
	return d
}

// finish records the decision in the request comment — who decided, how, with a link to each
// answer — and returns it.
func (a *approvalRun) finish(ctx context.Context, v verdict) hooks.Outcome {
	d := v.decider
	details := a.details(v)
	var status string
	out := hooks.Outcome{Details: details}
	if v.approve {
		details["decision"] = hooks.DecisionApprove
		var by []string
		for _, vt := range v.approving {
			by = append(by, fmt.Sprintf("@%s (%s, [link](%s))", vt.login, a.how(vt), vt.url))
		}
		status = fmt.Sprintf("✅ **Approved** by %s.", strings.Join(by, ", "))
		out.Status, out.Decision = hooks.StatusOK, hooks.DecisionApprove
		out.Reason = fmt.Sprintf("approved by %s on %s (%s)", strings.Join(atLogins(v.approvals), ", "), a.t, d.url)
		out.Stdout = out.Reason + "\n"
	} else {
		details["decision"] = hooks.DecisionBlock
		reason := d.reason
		if reason == "" {
			reason = "no reason given"
		}
		status = fmt.Sprintf("❌ **Rejected** by @%s (%s, [link](%s)): %s", d.login, a.how(d), d.url, reason)
		out.Status, out.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		out.Reason = fmt.Sprintf("rejected by @%s on %s: %s", d.login, a.t, reason)
		out.Feedback = d.reason
	}
	progress(a.inv.Stderr, "approval: %s", strings.TrimSpace(strings.ReplaceAll(status, "**", "")))
	if err := a.record(ctx, status); err != nil {
		out.Stderr = fmt.Sprintf("approval: could not record the decision in the request comment: %v\n", err)
	}
	return out
}

// how says how a vote was cast: "an approving review", "`/approve`", …
func (a *approvalRun) how(vt *vote) string {
	switch {
	case vt.via == "comment":
		return "`" + vt.command + "`"
	case vt.approve:
		return "an approving review"
	}
	return "a review requesting changes"
}

// detailPending marks the result of an approval nobody has decided yet.
const detailPending = "pending"

// pending is the answer of wait: false when nobody has decided yet.
func (a *approvalRun) pending(v verdict) hooks.Outcome {
	details := a.details(v)
	details["decision"] = "pending"
	details[detailPending] = true
	return hooks.Outcome{
		Status:   hooks.StatusBlocked,
		Decision: hooks.DecisionBlock,
		Reason: fmt.Sprintf("waiting for approval on %s (%d of %d approvals): %s",
			a.t, len(v.approvals), a.minApprovals, a.request.GetHTMLURL()),
		Details: details,
	}
}

// leftOpen is the outcome when nobody decided within the wait of a caller that asks again (an
// agent's tool call, cut short by the agent's timeout or the hook's): the request stays open,
// waiting, and this call is refused as pending, saying where to decide; the caller's next
// identical call finds the request and picks the decision up, as a re-run does with wait: false.
func (a *approvalRun) leftOpen(v verdict) hooks.Outcome {
	out := a.pending(v)
	out.Reason = fmt.Sprintf("approval pending on %s (%d of %d approvals): nobody has decided yet; the request stays open at %s, "+
		"and the same call made again once it is decided picks the decision up", a.t, len(v.approvals), a.minApprovals, a.request.GetHTMLURL())
	progress(a.inv.Stderr, "approval: still waiting on %s; the request stays open for the next identical call", a.request.GetHTMLURL())
	return out
}

// timedOut is the outcome when nobody decided before the deadline. timeoutAction applies only if
// the latest check succeeded (lastErr nil): after a failed one nobody knows whether someone
// rejected, and the approval is undecided.
func (a *approvalRun) timedOut(ctx context.Context, lastErr error) hooks.Outcome {
	v := a.last
	if lastErr != nil {
		out := a.undecided(fmt.Errorf("no decision on %s within %s, and the last check failed: %w", a.t, roundDuration(a.timeout), lastErr))
		out.Details["timedOut"] = true
		return out
	}
	if a.inv.AsksAgain && a.timeoutAction != hooks.DecisionApprove {
		return a.leftOpen(v)
	}
	details := a.details(v)
	details["timedOut"] = true
	details["decision"] = a.timeoutAction
	out := hooks.Outcome{Details: details}
	if a.timeoutAction != hooks.DecisionApprove {
		// The request stays open, as posted: a run made again takes up an answer given since.
		out.Status, out.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		out.Reason = fmt.Sprintf("no approval on %s within %s (%d of %d approvals)", a.t, roundDuration(a.timeout), len(v.approvals), a.minApprovals)
		return out
	}
	out.Status, out.Decision = hooks.StatusOK, hooks.DecisionApprove
	out.Stdout = fmt.Sprintf("no decision on %s after %s: approved by timeoutAction\n", a.t, roundDuration(a.timeout))
	status := fmt.Sprintf("⌛ **Timed out** after %s: approved automatically (timeoutAction).", roundDuration(a.timeout))
	if err := a.record(ctx, status); err != nil {
		out.Stderr = fmt.Sprintf("approval: could not record the timeout in the request comment: %v\n", err)
	}
	return out
}

// stopped is the outcome when the run is stopped from outside: at the engine's deadline (a
// timeout, unless the check in flight, err, is what it cut short) or by an interrupt.
func (a *approvalRun) stopped(ctx context.Context, err error) hooks.Outcome {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return a.timedOut(ctx, err)
	}
	return approval.Undecided("github", fmt.Errorf("interrupted while waiting on %s: %w", a.t, ctx.Err()), a.details(a.last))
}

// undecided is the outcome when the request cannot be made or checked: it blocks. The request
// comment is left as it is: only a decision closes a request (see approvalrequest.go).
func (a *approvalRun) undecided(err error) hooks.Outcome {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden && a.headRepo != "" && !strings.EqualFold(a.headRepo, a.t.Repository()) {
		err = fmt.Errorf("%w; this pull request comes from the fork %s, and a workflow run for a fork's pull request gets a read-only GITHUB_TOKEN whatever `permissions:` says: decide approvals in a workflow on pull_request_target or workflow_run, or with a GitHub App's token", err, a.headRepo)
	}
	return approval.Undecided("github", err, a.details(a.last))
}

func atLogins(logins []string) []string {
	out := make([]string, len(logins))
	for i, l := range logins {
		out[i] = "@" + l
	}
	return out
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
