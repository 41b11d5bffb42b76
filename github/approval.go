package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/hooks"
	gh "github.com/google/go-github/v60/github"
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
func (p ApprovalProvider) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Runner, error) {
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

// Run implements hooks.Runner.
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
		key = hooks.ExpandMessage(r.key, inv.Payload)
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
	request  *gh.IssueComment
	last     verdict // of the latest check that succeeded

	actor      account   // who started this run (GITHUB_ACTOR), recorded in a request it posts
	initiators []account // who started the work asked about: never decide unless allowSelf

	// bound is set for a request about an agent's tool call: an approving command counts only
	// when it names the request (/approve <ref>), and approving reviews do not count, because
	// neither says which call it approves, and the agent may have asked about another call
	// since the approver read the request.
	bound bool
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
	approvals []string // logins whose latest vote approves
	approving []*vote  // those votes, oldest first
	ignored   []string // why some votes did not count
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
	if err := a.findOrPostRequest(ctx); err != nil {
		return a.failure(ctx, err)
	}
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
		case err == nil:
			errorsInARow = 0
			a.last = v
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
				return a.undecided(ctx, err)
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
	return a.undecided(ctx, err)
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

// The request comment begins with a hidden marker naming the request's key, the head commit it
// was made for, the approval.RequestID of what it asks and who started the run that asked (login and
// id, none outside Actions); the part after the status marker is rewritten as the request
// progresses. Only a marker at the very start counts: other comments of the same identity may
// quote one.
var approvalMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^<!-- agent-hooks:approval key="([^"]*)" head="([0-9a-fA-F]*)" request="([0-9a-f]{64})"(?: actor="([^"]*)" actor-id="([0-9]*)")? -->`)
})

const statusMarker = "<!-- agent-hooks:status -->"

// findOrPostRequest reuses this hook's latest request (same key, posted by the token's own
// identity) when it asks for the same thing (same approval.RequestID, and the current head when
// requireHeadCommit), or posts a new one; an undecided earlier request is marked superseded.
func (a *approvalRun) findOrPostRequest(ctx context.Context) error {
	comments, err := a.c.Comments(ctx, a.t, time.Time{})
	if err != nil {
		return err
	}
	for i := len(comments) - 1; i >= 0; i-- {
		cm := comments[i]
		m := approvalMarker().FindStringSubmatch(cm.GetBody())
		if m == nil || m[1] != a.key {
			continue
		}
		if self, err := a.c.IsSelf(ctx, cm.GetUser()); err != nil {
			return err
		} else if !self {
			continue
		}
		status := statusOf(cm.GetBody())
		undecided := strings.HasPrefix(status, "⏳") || strings.HasPrefix(status, "⌛") || strings.HasPrefix(status, "🛑") || strings.HasPrefix(status, "⚠️")
		var why string
		switch {
		case m[3] != a.id:
			why = "↪️ **Superseded**: the agent asks for something else now; approval was asked again below."
		case a.requireHead && !strings.EqualFold(m[2], a.head):
			why = fmt.Sprintf("↪️ **Superseded**: new commits were pushed (head `%s`); approval was asked again below.", short(a.head))
		}
		if why != "" {
			if undecided {
				if _, err := a.c.EditComment(ctx, a.t, cm.GetID(), withStatus(cm.GetBody(), why)); err != nil {
					return err
				}
			}
			break
		}
		if undecided && !strings.HasPrefix(status, "⏳") {
			// An earlier run timed out, was cancelled or could not decide: the request is waited
			// on again.
			edited, err := a.c.EditComment(ctx, a.t, cm.GetID(), withStatus(cm.GetBody(), a.waitingStatus()))
			if err != nil {
				return err
			}
			cm = edited
		}
		a.request = cm
		if m[4] != "" {
			id, _ := strconv.ParseInt(m[5], 10, 64)
			a.initiators = append(a.initiators, account{login: m[4], id: id})
		}
		progress(a.inv.Stderr, "approval: waiting on the request at %s", cm.GetHTMLURL())
		return nil
	}
	if a.actor.login != "" {
		a.initiators = append(a.initiators, a.actor)
	}
	cm, err := a.c.CreateComment(ctx, a.t, a.requestBody())
	if err != nil {
		return err
	}
	a.request = cm
	progress(a.inv.Stderr, "approval: asked for approval at %s", cm.GetHTMLURL())
	return nil
}

// requestText is the request as the approver reads it: the message with the payload's values,
// which cannot carry markers of their own, and the agent's tool call when it is about one.
func (a *approvalRun) requestText() string {
	msg := a.message
	if msg == "" {
		msg = "The agent needs approval to continue."
	}
	text := strings.ReplaceAll(hooks.ExpandMessage(msg, a.inv.Payload), "<!--", "&lt;!--")
	if tc := approval.ToolCallOf(a.inv.Payload); tc != nil {
		text += "\n\n" + toolCallMarkdown(tc)
	}
	return text
}

func (a *approvalRun) requestBody() string {
	who := "someone with write access to this repository"
	if len(a.teams) > 0 {
		var teams []string
		for _, t := range a.teams {
			teams = append(teams, "@"+t.String())
		}
		who = "a member of " + strings.Join(teams, ", ")
	}
	if len(a.approvers) > 0 {
		who += " or " + strings.Join(atLogins(a.approvers), ", ")
	}
	if !a.allowSelf {
		var not []string
		if a.author.login != "" {
			not = append(not, fmt.Sprintf("the pull request's author @%s", a.author.login))
		}
		if a.actor.login != "" && !a.author.is(&gh.User{Login: &a.actor.login, ID: &a.actor.id}) {
			not = append(not, fmt.Sprintf("@%s, who started this run", a.actor.login))
		}
		if len(not) > 0 {
			who += ", other than " + strings.Join(not, " and ")
		}
	}
	count := "one approval is"
	if a.minApprovals > 1 {
		count = fmt.Sprintf("%d approvals are", a.minApprovals)
	}
	review := "an **Approve** / **Request changes** review counts too"
	if a.requireHead {
		review += fmt.Sprintf(" when it is on the current head `%s`", short(a.head))
	}
	arg := ""
	if a.bound {
		arg = " " + a.ref()
		review = "the command must name this request (`" + a.ref() + "`): an approving review, or a command naming another request, approves no tool call"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- agent-hooks:approval key=%q head=%q request=%q", a.key, a.head, a.id)
	if a.actor.login != "" {
		fmt.Fprintf(&b, " actor=%q actor-id=\"%d\"", a.actor.login, a.actor.id)
	}
	b.WriteString(" -->\n")
	fmt.Fprintf(&b, "### 🔐 Approval requested · %s\n\n%s\n\n", a.inv.Event, a.text)
	fmt.Fprintf(&b, "Reply %s to let the agent proceed, or %s to stop it; %s. "+
		"Decided by %s; %s needed.\n\n", commandList(a.approveWords, arg), commandList(a.rejectWords, arg+" <reason>"), review, who, count)
	b.WriteString(statusMarker + "\n")
	b.WriteString(a.waitingStatus())
	return b.String()
}

// refPattern matches what names a request in a command (ref).
var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{8}$`) })

// ref is how an approver names this request in a command: the start of its request id.
func (a *approvalRun) ref() string { return a.id[:8] }

func (a *approvalRun) waitingStatus() string {
	if a.inv.AsksAgain && a.timeoutAction != hooks.DecisionApprove {
		return "⏳ **Waiting for a decision**: until then the agent is refused this call, and it picks the decision up when it makes the same call again."
	}
	return fmt.Sprintf("⏳ **Waiting for a decision** (up to %s, then %s).", roundDuration(a.timeout), a.timeoutVerb())
}

func (a *approvalRun) timeoutVerb() string {
	if a.timeoutAction == hooks.DecisionApprove {
		return "approved automatically"
	}
	return "blocked"
}

// statusOf is the status part of a request comment.
func statusOf(body string) string {
	_, status, _ := strings.Cut(body, statusMarker+"\n")
	return status
}

// withStatus replaces the status part of a request comment.
func withStatus(body, status string) string {
	if i := strings.Index(body, statusMarker); i >= 0 {
		body = body[:i]
	} else {
		body += "\n\n"
	}
	return body + statusMarker + "\n" + status
}

// check reads the reviews and comments made since the request and decides if it can.
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
	var votes []vote
	for _, cm := range comments {
		login := cm.GetUser().GetLogin()
		if cm.GetID() <= a.request.GetID() || cm.GetCreatedAt().Before(since) {
			continue
		}
		if self, err := a.c.IsSelf(ctx, cm.GetUser()); err != nil || self {
			if err != nil {
				return v, err
			}
			continue
		}
		command, approve, reason, ok := a.parseCommand(cm.GetBody())
		if !ok {
			continue
		}
		if a.bound {
			named, rest, _ := strings.Cut(reason, " ")
			switch {
			case strings.EqualFold(named, a.ref()):
				reason = strings.TrimSpace(rest)
			case approve || refPattern().MatchString(named):
				v.ignored = append(v.ignored, fmt.Sprintf("@%s's %s does not name this request (%s %s)", login, command, command, a.ref()))
				continue
			}
			if approve {
				reason = ""
			}
		}
		votes = append(votes, vote{user: cm.GetUser(), login: login, approve: approve, via: "comment", command: command, url: cm.GetHTMLURL(), reason: reason, at: cm.GetCreatedAt().Time})
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
			if a.bound {
				v.ignored = append(v.ignored, fmt.Sprintf("@%s's approving review does not name a tool call (%s %s does)", login, a.approveWords[0], a.ref()))
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

// record edits the request comment with a new status; it still runs when ctx is done.
func (a *approvalRun) record(ctx context.Context, status string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	_, err := a.c.EditComment(ctx, a.t, a.request.GetID(), withStatus(a.request.GetBody(), status))
	return err
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
		out := a.undecided(ctx, fmt.Errorf("no decision on %s within %s, and the last check failed: %w", a.t, roundDuration(a.timeout), lastErr))
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
	var status string
	if a.timeoutAction == hooks.DecisionApprove {
		out.Status, out.Decision = hooks.StatusOK, hooks.DecisionApprove
		out.Stdout = fmt.Sprintf("no decision on %s after %s: approved by timeoutAction\n", a.t, roundDuration(a.timeout))
		status = fmt.Sprintf("⌛ **Timed out** after %s: approved automatically (timeoutAction).", roundDuration(a.timeout))
	} else {
		out.Status, out.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		out.Reason = fmt.Sprintf("no approval on %s within %s (%d of %d approvals)", a.t, roundDuration(a.timeout), len(v.approvals), a.minApprovals)
		status = fmt.Sprintf("⌛ **Timed out** after %s: blocked.", roundDuration(a.timeout))
	}
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
	out := approval.Undecided("github", fmt.Errorf("interrupted while waiting on %s: %w", a.t, ctx.Err()), a.details(a.last))
	if err := a.record(ctx, "🛑 **Cancelled**: the agent stopped waiting."); err != nil {
		out.Stderr = fmt.Sprintf("approval: could not record the cancellation in the request comment: %v\n", err)
	}
	return out
}

// undecided is the outcome when the request cannot be made or checked: it blocks, and says why
// in the request comment too when there is one.
func (a *approvalRun) undecided(ctx context.Context, err error) hooks.Outcome {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden && a.headRepo != "" && !strings.EqualFold(a.headRepo, a.t.Repository()) {
		err = fmt.Errorf("%w; this pull request comes from the fork %s, and a workflow run for a fork's pull request gets a read-only GITHUB_TOKEN whatever `permissions:` says: decide approvals in a workflow on pull_request_target or workflow_run, or with a GitHub App's token", err, a.headRepo)
	}
	out := approval.Undecided("github", err, a.details(a.last))
	if a.request != nil {
		status := fmt.Sprintf("⚠️ **Could not be decided**, so the agent is blocked: %s", oneLine(err.Error()))
		if rerr := a.record(ctx, status); rerr != nil {
			out.Stderr = fmt.Sprintf("approval: could not record the failure in the request comment: %v\n", rerr)
		}
	}
	return out
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
