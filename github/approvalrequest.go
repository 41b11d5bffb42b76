package github

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// The request comment, and why what it says can be trusted.
//
// The agent being gated holds the token the request is posted with: it can post comments as that
// account and edit any comment of the pull request, the request included, so neither the author
// nor the editor of a comment tells the request from a forgery. What binds the request to what it
// asks is its text: every request comment is rendered, whole, from the hook's configuration, the
// payload and the fields its marker records (requestFields), so its text can be checked against
// that rendering; and GitHub's record of its edits (GraphQL lastEditedAt and userContentEdits,
// see Client.CommentEdits), which the token cannot erase, tells whether anything else was ever
// shown in its place. Hence:
//
//   - An open request is never edited, by us either: a wait that ends undecided (a timeout, an
//     interruption, a failure) leaves it as posted. It counts while GitHub records no edit of it
//     and it reads as rendered; a later run or call takes it up only then, so no run ever has to
//     trust another run's edit, which it could not tell from the agent's.
//   - A request is edited only to close it with a decision (its status part), after checking it
//     is still as posted, with its whole text rendered anew — never the body read back. A closed
//     request never approves again: the same request made again is asked anew. (Its rejection
//     still holds: that needs no trust.)
//   - A request edited by anyone else, deleted, or not reading as rendered approves nothing: the
//     call is denied, the request is asked anew in a fresh comment, and the edited comment is
//     withdrawn with a text that repeats nothing of it.
//   - Answers to a request for the same thing as one that may have shown something else must name
//     the new request's own ref, so that an answer read off the old one does not carry over.

// requestFields are what a request comment's marker records, from which its whole text is
// rendered.
type requestFields struct {
	key   string // which request of the pull request the hook makes (event and hook, or "key")
	head  string // the head commit it was made for
	id    string // approval.RequestID of what it asks
	ref   string // what an answer must name (/approve REF); "" when a bare command counts
	actor account
}

// The request comment begins with a hidden marker of its requestFields: the request's key, the
// head commit it was made for, the approval.RequestID of what it asks, the ref answers must name
// when they must, and who started the run that asked (login and id, none outside Actions). Only a
// marker at the very start counts: other comments of the same identity may quote one.
var approvalMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^<!-- agent-hooks:approval key="([^"]*)" head="([0-9a-fA-F]*)" request="([0-9a-f]{64})"(?: ref="([0-9a-f]{8})")?(?: actor="([^"]*)" actor-id="([0-9]*)")? -->`)
})

// parseMarker reads the marker a request comment begins with.
func parseMarker(body string) (requestFields, bool) {
	m := approvalMarker().FindStringSubmatch(body)
	if m == nil {
		return requestFields{}, false
	}
	id, _ := strconv.ParseInt(m[6], 10, 64)
	return requestFields{key: m[1], head: m[2], id: m[3], ref: m[4], actor: account{login: m[5], id: id}}, true
}

func (f requestFields) marker() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- agent-hooks:approval key=%q head=%q request=%q", f.key, f.head, f.id)
	if f.ref != "" {
		fmt.Fprintf(&b, " ref=%q", f.ref)
	}
	if f.actor.login != "" {
		fmt.Fprintf(&b, " actor=%q actor-id=\"%d\"", f.actor.login, f.actor.id)
	}
	b.WriteString(" -->")
	return b.String()
}

const statusMarker = "<!-- agent-hooks:status -->"

// closeStatuses begin the status part of a closed request: a decision (✅ ❌, ⌛ by
// timeoutAction approve), a request that replaced it (↪️), or — written by earlier versions, which
// also closed a request on a timeout, a cancellation or a failure — ⌛ 🛑 ⚠️. An open one's begins
// with ⏳.
var closeStatuses = []string{"✅", "❌", "⌛", "🛑", "⚠️", "↪️"}

// isClosing reports whether a request's status part says it is closed.
func isClosing(status string) bool {
	for _, p := range closeStatuses {
		if strings.HasPrefix(status, p) {
			return true
		}
	}
	return false
}

// statusOf is the status part of a request comment.
func statusOf(body string) string {
	_, status, _ := strings.Cut(body, statusMarker+"\n")
	return status
}

// requestText is the request as the approver reads it: the message with the payload's values,
// which cannot carry markers of their own, and the agent's tool call when it is about one.
func (a *approvalRun) requestText() string {
	msg := a.message
	if msg == "" {
		msg = "The agent needs approval to continue."
	}
	text := strings.ReplaceAll(template.ExpandMessage(msg, a.inv.Payload), "<!--", "&lt;!--")
	if tc := approval.ToolCallOf(a.inv.Payload); tc != nil {
		text += "\n\n" + toolCallMarkdown(tc)
	}
	return text
}

// render is the whole text of the request of fields with status: the same fields, configuration
// and payload always render the same text.
func (a *approvalRun) render(f requestFields, status string) string {
	return a.top(f) + statusMarker + "\n" + status
}

// top is the part of the request before its status.
func (a *approvalRun) top(f requestFields) string {
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
		if f.actor.login != "" && !a.author.is(&gh.User{Login: &f.actor.login, ID: &f.actor.id}) {
			not = append(not, fmt.Sprintf("@%s, who started this run", f.actor.login))
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
		review += fmt.Sprintf(" when it is on the current head `%s`", short(f.head))
	}
	arg := ""
	switch {
	case f.ref != "" && a.bound:
		arg = " " + f.ref
		review = "the command must name this request (`" + f.ref + "`): an approving review, or a command naming another request, approves no tool call"
	case f.ref != "":
		arg = " " + f.ref
		review = "the command must name this request (`" + f.ref + "`), which replaces one that cannot be trusted: an approving review, or a command naming no request or another one, approves nothing"
	}
	var b strings.Builder
	b.WriteString(f.marker() + "\n")
	fmt.Fprintf(&b, "### 🔐 Approval requested · %s\n\n%s\n\n", a.inv.Event, a.text)
	fmt.Fprintf(&b, "Reply %s to let the agent proceed, or %s to stop it; %s. "+
		"Decided by %s; %s needed.\n\n", commandList(a.approveWords, arg), commandList(a.rejectWords, arg+" <reason>"), review, who, count)
	return b.String()
}

// refPattern matches what names a request in a command (ref).
var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{8}$`) })

// firstRef is the ref of a request that follows none it could be confused with: a random one for
// a tool call, none otherwise (a bare command counts). Random, not derived from the call: the
// agent can delete a request it forged, and an answer read off it must not name the next one.
func (a *approvalRun) firstRef() (string, error) {
	if a.bound {
		return newRef("")
	}
	return "", nil
}

// newRef is a random ref other than old: for a request that replaces one (old's) that cannot be
// trusted, so that no answer given to the old one names it.
func newRef(old string) (string, error) {
	for {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("make a ref for the request: %w", err)
		}
		if ref := hex.EncodeToString(b[:]); ref != strings.ToLower(old) {
			return ref, nil
		}
	}
}

// waitingStatus is the status a request is posted with. Nothing edits it while the request is
// open, so it must stay true when a wait ends undecided.
func (a *approvalRun) waitingStatus() string {
	switch {
	case a.timeoutAction == hooks.DecisionApprove:
		return fmt.Sprintf("⏳ **Waiting for a decision** (up to %s, then approved automatically).", roundDuration(a.timeout))
	case a.inv.AsksAgain:
		return "⏳ **Waiting for a decision**: until then the agent is refused this call, and it picks the decision up when it makes the same call again."
	}
	return fmt.Sprintf("⏳ **Waiting for a decision**: a run waits up to %s, then blocks; run again, it takes up an answer given since.", roundDuration(a.timeout))
}

// untrusted is why a request comment approves nothing: GitHub records an edit of it, it is gone,
// or it does not read as rendered.
type untrusted struct {
	url string // the request comment's
	why string // "was edited after it was posted (…)", "was deleted", …
}

// editedWhy says who last edited a comment and when, as GitHub records it.
func editedWhy(e *CommentEdits) string {
	var by []string
	if !e.LastEditedAt.IsZero() {
		by = append(by, "at "+e.LastEditedAt.UTC().Format(time.RFC3339))
	}
	if e.Editor != "" {
		by = append(by, "by @"+e.Editor)
	}
	if len(by) == 0 {
		return "was edited after it was posted"
	}
	return "was edited after it was posted (last " + strings.Join(by, " ") + ")"
}

// trust says why the request comment cm, as GitHub records it now (e, nil when it is gone),
// cannot be trusted to show body, the text it was posted with; nil when it can.
func trust(cm *gh.IssueComment, e *CommentEdits, body string) *untrusted {
	u := &untrusted{url: cm.GetHTMLURL()}
	switch {
	case e == nil:
		u.why = "was deleted"
	case e.Edited():
		u.why = editedWhy(e)
	case e.Body != body:
		u.why = "does not read as this hook asks it (it was not posted by this hook as it is configured now)"
	default:
		return nil
	}
	return u
}

// findOrPostRequest takes up this hook's latest request (same key, posted by the token's own
// account) when it asks for the same thing (same approval.RequestID, and the current head when
// requireHeadCommit) and can be trusted; otherwise it posts a new one, marking an open earlier
// request superseded when it reads as posted. A request for the same thing that was closed is
// asked anew (a rejection of it still holds); one that cannot be trusted is withdrawn and asked
// anew, and the call is denied. When the call is decided here, the outcome is returned with done
// set.
func (a *approvalRun) findOrPostRequest(ctx context.Context) (out hooks.Outcome, done bool, err error) {
	comments, err := a.c.Comments(ctx, a.t, time.Time{})
	if err != nil {
		return out, false, err
	}
	var (
		prev *gh.IssueComment
		pf   requestFields
	)
	for i := len(comments) - 1; i >= 0 && prev == nil; i-- {
		f, ok := parseMarker(comments[i].GetBody())
		if !ok || f.key != a.key {
			continue
		}
		if self, err := a.c.IsSelf(ctx, comments[i].GetUser()); err != nil {
			return out, false, err
		} else if self {
			prev, pf = comments[i], f
		}
	}
	fields := requestFields{key: a.key, head: a.head, id: a.id, actor: a.actor}
	if fields.ref, err = a.firstRef(); err != nil {
		return out, false, err
	}
	if prev == nil {
		return out, false, a.post(ctx, fields)
	}
	edits, err := a.c.CommentEdits(ctx, []string{prev.GetNodeID()})
	if err != nil {
		return out, false, err
	}
	e := edits[prev.GetNodeID()]
	if pf.id != a.id {
		// The agent asks for something else now: the latest request is superseded.
		if e != nil && !e.Edited() {
			top, _, _ := strings.Cut(e.Body, statusMarker+"\n")
			why := "↪️ **Superseded**: the agent asks for something else now; approval was asked again below."
			if _, err := a.c.EditComment(ctx, a.t, prev.GetID(), top+statusMarker+"\n"+why); err != nil {
				return out, false, err
			}
		}
		return out, false, a.post(ctx, fields)
	}

	// The same request: asked again when it can be trusted to have only ever read as it does.
	if pf.actor.login != "" {
		fields.actor = pf.actor // who asked first
	}
	u := trust(prev, e, a.render(pf, a.waitingStatus()))
	switch {
	case u == nil && (!a.requireHead || strings.EqualFold(pf.head, a.head)):
		a.adopt(prev, pf, e.Body)
		progress(a.inv.Stderr, "approval: waiting on the request at %s", prev.GetHTMLURL())
		return out, false, nil
	case u == nil:
		why := fmt.Sprintf("↪️ **Superseded**: new commits were pushed (head `%s`); approval was asked again below.", short(a.head))
		if _, err := a.c.EditComment(ctx, a.t, prev.GetID(), a.render(pf, why)); err != nil {
			return out, false, err
		}
		return out, false, a.post(ctx, fields)
	case e == nil || !e.Edited() || !strings.HasPrefix(e.Body, a.top(pf)+statusMarker+"\n") || !isClosing(statusOf(e.Body)):
		return a.distrust(ctx, u, prev, pf.ref, fields), true, nil
	}
	// Closed (by a decision, as far as anyone can tell; no run can tell): it approves nothing
	// any more, but its rejection holds, which needs no trust.
	if strings.HasPrefix(statusOf(e.Body), "❌") && (!a.requireHead || strings.EqualFold(pf.head, a.head)) {
		a.adopt(prev, pf, e.Body)
		a.closed = true
		v, err := a.check(ctx)
		if err != nil {
			return out, false, err
		}
		if v.decided && !v.approve {
			return a.finish(ctx, v), true, nil
		}
		a.closed = false
	}
	if fields.ref, err = newRef(pf.ref); err != nil {
		return out, false, err
	}
	progress(a.inv.Stderr, "approval: the request at %s was closed; asking again", prev.GetHTMLURL())
	return out, false, a.post(ctx, fields)
}

// post posts the request of fields and waits on it.
func (a *approvalRun) post(ctx context.Context, f requestFields) error {
	body := a.render(f, a.waitingStatus())
	cm, err := a.c.CreateComment(ctx, a.t, body)
	if err != nil {
		return err
	}
	a.adopt(cm, f, body)
	progress(a.inv.Stderr, "approval: asked for approval at %s", cm.GetHTMLURL())
	return nil
}

// adopt makes cm, showing body, the request this run waits on; who started the run that asked
// for it never decides it (unless allowSelfApproval).
func (a *approvalRun) adopt(cm *gh.IssueComment, f requestFields, body string) {
	a.request, a.req, a.body, a.seen = cm, f, body, cm.GetUpdatedAt().Time
	if f.actor.login != "" {
		a.initiators = append(a.initiators, f.actor)
	}
}

// verify reads what GitHub records of the request comment's edits, and of the comments of ids
// beside it, and says why the request cannot be trusted (nil when it can).
func (a *approvalRun) verify(ctx context.Context, ids ...string) (*untrusted, map[string]*CommentEdits, error) {
	node := a.request.GetNodeID()
	edits, err := a.c.CommentEdits(ctx, append([]string{node}, ids...))
	if err != nil {
		return nil, nil, err
	}
	return trust(a.request, edits[node], a.body), edits, nil
}

// distrust is the outcome of a request that cannot be trusted (u): it is asked anew in a fresh
// request of fields with a ref other than the old one's (oldRef), the old comment is withdrawn,
// and the call is denied.
func (a *approvalRun) distrust(ctx context.Context, u *untrusted, old *gh.IssueComment, oldRef string, fields requestFields) hooks.Outcome {
	reason := fmt.Sprintf("the approval request at %s %s, so it approves nothing", u.url, u.why)
	a.request = nil // never recorded in: undecided must not write its status over the old comment
	ref, err := newRef(oldRef)
	if err == nil {
		fields.ref = ref
		err = a.post(ctx, fields)
	}
	if err != nil {
		return a.undecided(fmt.Errorf("%s; asking again failed: %w", reason, err))
	}
	reason += "; approval was asked again at " + a.request.GetHTMLURL()
	progress(a.inv.Stderr, "approval: %s", reason)
	details := a.details(verdict{})
	details["decision"] = hooks.DecisionBlock
	details["untrusted"] = u.url
	out := hooks.Outcome{Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, Reason: reason, Details: details}
	if u.why != "was deleted" {
		// Withdrawn with a text of our own: nothing of what the comment said is written back.
		withdrawn := fmt.Sprintf("### 🔐 Approval request withdrawn\n\n⚠️ This request %s, so it approves nothing and answers to it do not count. Approval was asked again: %s",
			u.why, a.request.GetHTMLURL())
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		if _, err := a.c.EditComment(wctx, a.t, old.GetID(), withdrawn); err != nil {
			out.Stderr = fmt.Sprintf("approval: could not withdraw the request at %s: %v\n", u.url, err)
		}
	}
	return out
}

// record closes the request with status: after checking that the request is still as it was
// posted, its whole text is rendered anew with the status. A request that was edited is left as
// it is: no edit of ours writes a text over one it did not check. It still runs when ctx is done.
func (a *approvalRun) record(ctx context.Context, status string) error {
	if a.request == nil || a.closed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	u, _, err := a.verify(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("check the request before editing it: %w", err)
	case u != nil:
		return fmt.Errorf("the request at %s %s: its status is left as it is", u.url, u.why)
	}
	_, err = a.c.EditComment(ctx, a.t, a.request.GetID(), a.render(a.req, status))
	return err
}
