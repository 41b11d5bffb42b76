// Package githubtest is a stand-in for the GitHub REST API, for tests: an httptest server that
// answers the operations agent-hooks uses (pulls get, list and by commit, reviews, issue
// comments, collaborator permission, teams and team membership, the token's user, the Git Data
// API on a real bare repository also served over smart HTTP) the way github.com does — bodies
// shaped from GitHub's documented examples, per_page/page paging with Link headers, `since`,
// ETag revalidation with 304, X-RateLimit-* headers, Bearer-token checks, comment edits by any
// token with write access with their edit history, GraphQL's viewer, minimizeComment and
// comments' edits — and can be told to fail the ways GitHub does: primary and secondary rate
// limits, 401, a 403 for a missing permission with GitHub's own body and
// X-Accepted-GitHub-Permissions header (for one request, or for every operation a token's
// permissions do not cover), 404, 422 for a ref update that is not a fast-forward, a response
// that never comes, and broken paging (a rel="next" link that repeats, or never ends).
package githubtest

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// api holds GitHub's documented example responses (from GitHub's REST description, MIT).
//
//go:embed api/*.json
var api embed.FS

var (
	examplesMu sync.Mutex
	examples   = map[string]map[string]any{}
)

// example returns a shallow copy of a documented example object (the first of a list): set its
// top-level fields freely, but copy a nested object before changing it.
func example(name string) map[string]any {
	examplesMu.Lock()
	defer examplesMu.Unlock()
	ex, ok := examples[name]
	if !ok {
		b, err := api.ReadFile("api/" + name + ".json")
		if err != nil {
			panic(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			panic(err)
		}
		if list, ok := v.([]any); ok {
			v = list[0]
		}
		ex = v.(map[string]any)
		examples[name] = ex
	}
	return maps.Clone(ex)
}

// Comment is an issue comment on a pull request.
type Comment struct {
	ID        int64
	PR        int
	Login     string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Minimized is why the comment is hidden (GraphQL's minimizedReason: "outdated", …); "" while
	// it is shown.
	Minimized string
	// Edits are the edits of the comment's body since it was posted, oldest first: what GitHub
	// keeps as its edit history (GraphQL userContentEdits, lastEditedAt, editor).
	Edits []Edit
}

// Edit is one edit of a comment: who made it, when, and the body it left.
type Edit struct {
	Editor string
	At     time.Time
	Body   string
}

// Review is a pull-request review.
type Review struct {
	ID          int64
	PR          int
	Login       string
	State       string // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
	Body        string
	CommitID    string
	SubmittedAt time.Time
}

// Request is one request the server received.
type Request struct {
	Method, Path, Query string
	IfNoneMatch         string
	Status              int
}

// Fault makes the next Count requests matching Method and a path ending in PathSuffix fail with
// Status, Header and Body. With Denied they get GitHub's answer to a token that lacks a
// permission the operation needs (a GITHUB_TOKEN without `pull-requests: write`, any
// GITHUB_TOKEN of a pull request from a fork): 403 "Resource not accessible by integration" with
// the operation's documentation URL, and the permissions it accepts in
// X-Accepted-GitHub-Permissions. With Hang they are never answered: the response is held until
// the client gives up or the server is closed. After lets that many matching requests through
// first.
type Fault struct {
	Method     string
	PathSuffix string
	After      int
	Count      int
	Status     int
	Header     map[string]string
	Body       string
	Denied     bool
	Hang       bool
}

// Paging is how list endpoints page.
type Paging int

// The ways of paging.
const (
	// PagingNormal pages as GitHub does.
	PagingNormal Paging = iota
	// PagingRepeatNext answers every page with the same rel="next" link (to page 2), like a
	// proxy or an API stand-in that rewrites Link headers wrongly.
	PagingRepeatNext
	// PagingEndless always links a next page; the pages past the last one are empty.
	PagingEndless
)

// pr is one pull request.
type pr struct {
	head     string
	heads    []string // every head it has had, oldest first (the commits it contains)
	branch   string   // the head branch's name
	state    string   // open or closed
	author   string
	headRepo string // full name of the head repository: another one for a pull request from a fork
}

// Server is a fake GitHub API for one repository.
type Server struct {
	*httptest.Server
	Owner, Repo string

	mu        sync.Mutex
	closed    chan struct{}
	closeOnce sync.Once
	token     string
	user      string
	appBot    string
	prs       map[int]*pr
	userIDs   map[string]int64
	paging    Paging
	comments  []*Comment
	reviews   []*Review
	perms     map[string]string
	faults    []*Fault
	requests  []Request
	nextID    int64
	remaining int
	now       func() time.Time
	onComment []func(s *Server, c Comment)
	before    []*hook                      // see Before
	teams     map[string]map[string]string // "org/slug" → lower-case login → membership state
	grants    map[string]string            // the token's permissions; nil: all of them
	git       *gitRepo                     // the repository's git data, once ServeGit was called
}

// New starts a server for owner/repo that accepts token. The token's user is login; an empty
// login makes GET /user answer 403 like an Actions installation token, whose comments are then
// made as github-actions[bot].
func New(owner, repo, token, login string) *Server {
	s := &Server{
		Owner: owner, Repo: repo, token: token, user: login, closed: make(chan struct{}),
		prs: map[int]*pr{}, perms: map[string]string{}, userIDs: map[string]int64{},
		nextID: 1000, remaining: 5000, now: time.Now,
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close releases the responses a Hang fault holds, then shuts the server down.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.Server.Close()
}

// SetPaging sets how list endpoints page.
func (s *Server) SetPaging(p Paging) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paging = p
}

// SetRemaining sets how many requests are left in the rate-limit window (an hour from now).
func (s *Server) SetRemaining(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remaining = n
}

// DefaultPRAuthor opens the pull requests AddPR creates.
const DefaultPRAuthor = "octocat"

// AddPR creates pull request number with head commit sha (or moves its head), opened by
// DefaultPRAuthor from a branch of the repository itself.
func (s *Server) AddPR(number int, head string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.prs[number]
	if p == nil {
		p = &pr{author: DefaultPRAuthor, headRepo: s.Owner + "/" + s.Repo, branch: DefaultPRBranch, state: "open"}
		s.prs[number] = p
	}
	p.head = head
	p.heads = append(p.heads, head)
}

// DefaultPRBranch is the head branch of the pull requests AddPR creates.
const DefaultPRBranch = "new-topic"

// SetPRBranch makes branch the head branch of pull request number (created by AddPR).
func (s *Server) SetPRBranch(number int, branch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[number].branch = branch
}

// SetPRState opens or closes pull request number (created by AddPR).
func (s *Server) SetPRState(number int, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[number].state = state
}

// SetPRAuthor makes login the author of pull request number (created by AddPR).
func (s *Server) SetPRAuthor(number int, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[number].author = login
}

// SetPRFork makes pull request number come from a branch of the fork fullName (owner/repo).
func (s *Server) SetPRFork(number int, fullName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[number].headRepo = fullName
}

// SetPermission sets login's permission on the repository (admin, maintain, write, triage,
// read, none).
func (s *Server) SetPermission(login, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perms[strings.ToLower(login)] = perm
}

// AddComment adds a comment by login, timestamped now (or at, if not zero).
func (s *Server) AddComment(pr int, login, body string, at time.Time) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.addCommentLocked(pr, login, body, at)
}

func (s *Server) addCommentLocked(pr int, login, body string, at time.Time) *Comment {
	if at.IsZero() {
		at = s.now()
	}
	at = at.UTC().Truncate(time.Second)
	s.nextID++
	c := &Comment{ID: s.nextID, PR: pr, Login: login, Body: body, CreatedAt: at, UpdatedAt: at}
	s.comments = append(s.comments, c)
	return c
}

// EditComment replaces the body of comment id as editor would (anyone with write access may edit
// any comment, as on GitHub): the body changes, updated_at moves to now, and the edit joins the
// comment's history. It returns the edited comment.
func (s *Server) EditComment(id int64, editor, body string) (Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.comment(id)
	if c == nil {
		return Comment{}, fmt.Errorf("no comment %d", id)
	}
	s.editLocked(c, editor, body)
	return *c, nil
}

func (s *Server) editLocked(c *Comment, editor, body string) {
	at := s.now().UTC().Truncate(time.Second)
	c.Body, c.UpdatedAt = body, at
	c.Edits = append(c.Edits, Edit{Editor: editor, At: at, Body: body})
}

// TouchComment moves comment id's updated_at a second past what it was without editing it, as
// GitHub was seen to do to a comment just posted: updated_at alone does not tell an edit.
func (s *Server) TouchComment(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.comment(id)
	if c == nil {
		return fmt.Errorf("no comment %d", id)
	}
	c.UpdatedAt = c.UpdatedAt.Add(time.Second)
	return nil
}

// DeleteComment deletes comment id, as anyone with write access can on GitHub: it leaves no
// trace in the comments list, nor in GraphQL.
func (s *Server) DeleteComment(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.comments {
		if c.ID == id {
			s.comments = append(s.comments[:i], s.comments[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("no comment %d", id)
}

func (s *Server) comment(id int64) *Comment {
	for _, c := range s.comments {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// requestMarker finds the request id, and the ref when the request has one, in the marker an
// approval request comment begins with.
var requestMarker = regexp.MustCompile(`^<!-- agent-hooks:approval [^>]*request="([0-9a-f]{64})"(?: ref="([0-9a-f]{8})")?`)

// RequestRef is how an approver names the latest approval request on pull request pr in a
// command (/approve REF answers a tool call): the ref its marker records, else the start of its
// request id; "" when there is no request.
func (s *Server) RequestRef(pr int) string {
	if c := s.LatestRequest(pr); c != nil {
		m := requestMarker.FindStringSubmatch(c.Body)
		return cmpOr(m[2], m[1][:8])
	}
	return ""
}

// LatestRequest is the latest approval request comment on pull request pr (a comment that
// begins with the request marker), nil when there is none.
func (s *Server) LatestRequest(pr int) *Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.comments) - 1; i >= 0; i-- {
		if c := s.comments[i]; c.PR == pr && requestMarker.MatchString(c.Body) {
			cp := *c
			return &cp
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// AddReview adds a review by login on commit (empty: the current head), timestamped now (or at).
func (s *Server) AddReview(pr int, login, state, body, commit string, at time.Time) Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.addReviewLocked(pr, login, state, body, commit, at)
}

func (s *Server) addReviewLocked(pr int, login, state, body, commit string, at time.Time) *Review {
	if at.IsZero() {
		at = s.now()
	}
	if commit == "" && s.prs[pr] != nil {
		commit = s.prs[pr].head
	}
	s.nextID++
	r := &Review{ID: s.nextID, PR: pr, Login: login, State: state, Body: body, CommitID: commit, SubmittedAt: at.UTC().Truncate(time.Second)}
	s.reviews = append(s.reviews, r)
	return r
}

// OnComment calls f (without the server's lock held) after every comment created through the
// API, e.g. to answer an approval request.
func (s *Server) OnComment(f func(s *Server, c Comment)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onComment = append(s.onComment, f)
}

// Fail queues a fault.
func (s *Server) Fail(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Comments returns the comments of the pull request, oldest first.
func (s *Server) Comments(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ofPR(s.comments, pr, func(c *Comment) int { return c.PR })
}

// Reviews returns the reviews of the pull request, oldest first.
func (s *Server) Reviews(pr int) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ofPR(s.reviews, pr, func(r *Review) int { return r.PR })
}

// ofPR copies the items of one pull request.
func ofPR[T any](items []*T, pr int, number func(*T) int) []T {
	var out []T
	for _, it := range items {
		if number(it) == pr {
			out = append(out, *it)
		}
	}
	return out
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// SetAppBot makes the token a GitHub App's installation token whose comments appear as login
// (GET /user answers 403).
func (s *Server) SetAppBot(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.appBot = "", login
}

// Identity is the login comments made with the token appear under.
func (s *Server) Identity() string {
	switch {
	case s.user != "":
		return s.user
	case s.appBot != "":
		return s.appBot
	}
	return "github-actions[bot]"
}

var (
	rePR          = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`)
	reReviews     = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$`)
	reComments    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`)
	reEditComment = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$`)
	rePermission  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/collaborators/([^/]+)/permission$`)
)

// operation is GitHub's documentation URL of the operation a request makes, and the
// fine-grained permissions that allow it, as X-Accepted-GitHub-Permissions lists them (sets
// separated by ";", any one of which is enough).
func operation(method, path string) (doc, permissions string) {
	const docs = "https://docs.github.com/rest/"
	switch {
	case rePR.MatchString(path):
		return docs + "pulls/pulls#get-a-pull-request", "pull_requests=read"
	case reReviews.MatchString(path) && method == http.MethodPost:
		return docs + "pulls/reviews#create-a-review-for-a-pull-request", "pull_requests=write"
	case reReviews.MatchString(path):
		return docs + "pulls/reviews#list-reviews-for-a-pull-request", "pull_requests=read"
	case reComments.MatchString(path) && method == http.MethodPost:
		return docs + "issues/comments#create-an-issue-comment", "issues=write; pull_requests=write"
	case reComments.MatchString(path):
		return docs + "issues/comments#list-issue-comments", "issues=read; pull_requests=read"
	case reEditComment.MatchString(path):
		return docs + "issues/comments#update-an-issue-comment", "issues=write; pull_requests=write"
	case rePermission.MatchString(path):
		return docs + "collaborators/collaborators#get-repository-permissions-for-a-user", "metadata=read"
	}
	return moreOperation(method, path)
}

// reply is what a handler decided to answer.
type reply struct {
	status int
	body   any
	header http.Header
	hang   bool // answer nothing
}

// hook is a function Before runs.
type hook struct {
	method, suffix string
	count          int
	f              func()
}

// Before runs f (without the server's lock held) before answering the next count requests of
// method to a path ending in suffix, e.g. to move a branch between two requests of a client.
func (s *Server) Before(method, suffix string, count int, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.before = append(s.before, &hook{method, suffix, count, f})
}

func (s *Server) runBefore(r *http.Request) {
	s.mu.Lock()
	var run []func()
	for _, h := range s.before {
		if h.count > 0 && h.method == r.Method && strings.HasSuffix(r.URL.Path, h.suffix) {
			h.count--
			run = append(run, h.f)
		}
	}
	s.mu.Unlock()
	for _, f := range run {
		f()
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.runBefore(r)
	if s.serveGit(w, r) {
		return
	}
	s.mu.Lock()
	rep, created := s.handle(r)
	if rep.hang {
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, IfNoneMatch: r.Header.Get("If-None-Match")})
		s.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	var body []byte
	if rep.body != nil {
		if raw, ok := rep.body.(json.RawMessage); ok {
			body = raw
		} else {
			body, _ = json.Marshal(rep.body)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	status := rep.status
	inm := r.Header.Get("If-None-Match")
	if r.Method == http.MethodGet && status == http.StatusOK {
		sum := sha256.Sum256(body)
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		w.Header().Set("ETag", etag)
		if inm == etag {
			status, body = http.StatusNotModified, nil
		}
	}
	s.setRateHeaders(w.Header(), status)
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, IfNoneMatch: inm, Status: status})
	callbacks := slices.Clone(s.onComment)
	s.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write(body)
	if created != nil {
		for _, f := range callbacks {
			f(s, *created)
		}
	}
}

// setRateHeaders sends the X-RateLimit-* headers of every REST response, leaving those a fault
// set; a 304 does not count against the limit.
func (s *Server) setRateHeaders(h http.Header, status int) {
	if h.Get("X-RateLimit-Remaining") != "" {
		return
	}
	if status != http.StatusNotModified && s.remaining > 0 {
		s.remaining--
	}
	for k, v := range map[string]string{
		"X-RateLimit-Limit":     "5000",
		"X-RateLimit-Remaining": strconv.Itoa(s.remaining),
		"X-RateLimit-Used":      strconv.Itoa(5000 - s.remaining),
		"X-RateLimit-Reset":     strconv.FormatInt(s.now().Add(time.Hour).Unix(), 10),
		"X-RateLimit-Resource":  "core",
	} {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
}

func apiError(status int, msg, doc string) reply {
	return reply{status: status, body: map[string]any{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)}}
}

func notFound() reply {
	return apiError(http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
}

func (s *Server) handle(r *http.Request) (reply, *Comment) {
	for i, f := range s.faults {
		if f.Count > 0 && (f.Method == "" || f.Method == r.Method) && strings.HasSuffix(r.URL.Path, f.PathSuffix) {
			if f.After > 0 {
				f.After--
				continue
			}
			f.Count--
			if f.Count == 0 {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
			if f.Hang {
				return reply{hang: true}, nil
			}
			h := http.Header{}
			for k, v := range f.Header {
				h.Set(k, strings.ReplaceAll(v, "{now}", strconv.FormatInt(s.now().Unix(), 10)))
			}
			if f.Denied {
				doc, perms := operation(r.Method, strings.TrimPrefix(r.URL.Path, "/api/v3"))
				h.Set("X-Accepted-GitHub-Permissions", perms)
				rep := apiError(http.StatusForbidden, "Resource not accessible by integration", doc)
				rep.header = h
				return rep, nil
			}
			// {authorization}: the request's Authorization header, as servers and proxies that
			// echo what they were sent put it in their error messages.
			body, _ := json.Marshal(r.Header.Get("Authorization"))
			return reply{status: f.Status, header: h, body: json.RawMessage(strings.ReplaceAll(f.Body, "{authorization}", strings.Trim(string(body), `"`)))}, nil
		}
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		return apiError(http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest"), nil
	}
	path := strings.TrimPrefix(r.URL.Path, "/api/v3")
	if path == "/user" && r.Method == http.MethodGet {
		if s.user == "" {
			return apiError(http.StatusForbidden, "Resource not accessible by integration", "https://docs.github.com/rest/users/users#get-the-authenticated-user"), nil
		}
		return reply{status: http.StatusOK, body: s.userJSON(s.user)}, nil
	}
	if (path == "/graphql" || r.URL.Path == "/api/graphql") && r.Method == http.MethodPost {
		return s.graphQL(r), nil
	}
	if rep, ok := s.denied(r.Method, path); ok {
		return rep, nil
	}
	if rep, ok := s.handleMore(r, path); ok {
		return rep, nil
	}
	for _, re := range []*regexp.Regexp{rePR, reReviews, reComments, reEditComment, rePermission} {
		if m := re.FindStringSubmatch(path); m != nil && (m[1] != s.Owner || m[2] != s.Repo) {
			return notFound(), nil
		}
	}
	if m := rePermission.FindStringSubmatch(path); m != nil && r.Method == http.MethodGet {
		perm, ok := s.perms[strings.ToLower(m[3])]
		if !ok {
			return notFound(), nil
		}
		body := example("repos.get-collaborator-permission-level")
		body["permission"] = legacyPermission(perm)
		body["role_name"] = perm
		body["user"] = s.userJSON(m[3])
		return reply{status: http.StatusOK, body: body}, nil
	}
	if m := reEditComment.FindStringSubmatch(path); m != nil && r.Method == http.MethodPatch {
		// A token with write access edits anyone's comment, not only its own (the permission check
		// is denied's); the edit joins the comment's history under the token's account.
		id, _ := strconv.ParseInt(m[3], 10, 64)
		c := s.comment(id)
		if c == nil {
			return notFound(), nil
		}
		var in struct{ Body *string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
			return apiError(http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.", "https://docs.github.com/rest/issues/comments#update-an-issue-comment"), nil
		}
		s.editLocked(c, s.Identity(), *in.Body)
		return reply{status: http.StatusOK, body: s.commentJSON(r, c)}, nil
	}
	var number int
	for _, re := range []*regexp.Regexp{rePR, reReviews, reComments} {
		if m := re.FindStringSubmatch(path); m != nil {
			number, _ = strconv.Atoi(m[3])
		}
	}
	p, ok := s.prs[number]
	if number == 0 || !ok {
		return notFound(), nil
	}
	switch {
	case rePR.MatchString(path) && r.Method == http.MethodGet:
		return reply{status: http.StatusOK, body: s.prJSON("pulls.get", number, p)}, nil
	case reReviews.MatchString(path) && r.Method == http.MethodGet:
		var list []*Review
		for _, rv := range s.reviews {
			if rv.PR == number {
				list = append(list, rv)
			}
		}
		return page(s, r, list, s.reviewJSON), nil
	case reReviews.MatchString(path) && r.Method == http.MethodPost:
		var in struct {
			CommitID *string `json:"commit_id"`
			Body     string  `json:"body"`
			Event    string  `json:"event"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			return apiError(http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"), nil
		}
		state := map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}[in.Event]
		if state == "" || state != "APPROVED" && strings.TrimSpace(in.Body) == "" {
			return apiError(http.StatusUnprocessableEntity, "Unprocessable Entity", "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"), nil
		}
		if state != "COMMENTED" && s.user == "" {
			// The default Actions setting: GITHUB_TOKEN may not approve or request changes.
			return apiError(http.StatusUnprocessableEntity, "Unprocessable Entity: \"GitHub Actions is not permitted to approve pull requests.\"", "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"), nil
		}
		commit := ""
		if in.CommitID != nil {
			commit = *in.CommitID
		}
		rv := s.addReviewLocked(number, s.Identity(), state, in.Body, commit, time.Time{})
		return reply{status: http.StatusOK, body: s.reviewJSON(rv)}, nil
	case reComments.MatchString(path) && r.Method == http.MethodGet:
		var since time.Time
		if v := r.URL.Query().Get("since"); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return apiError(http.StatusUnprocessableEntity, "Invalid request: since is not a timestamp", "https://docs.github.com/rest/issues/comments#list-issue-comments"), nil
			}
			since = t
		}
		var list []*Comment
		for _, c := range s.comments {
			if c.PR == number && !c.UpdatedAt.Before(since) {
				list = append(list, c)
			}
		}
		return page(s, r, list, func(c *Comment) map[string]any { return s.commentJSON(r, c) }), nil
	case reComments.MatchString(path) && r.Method == http.MethodPost:
		var in struct{ Body *string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
			return apiError(http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.", "https://docs.github.com/rest/issues/comments#create-an-issue-comment"), nil
		}
		c := s.addCommentLocked(number, s.Identity(), *in.Body, time.Time{})
		cp := *c
		return reply{status: http.StatusCreated, body: s.commentJSON(r, c)}, &cp
	}
	return notFound(), nil
}

// prJSON is pull request number as the documented example of operation (pulls.get, or a list's
// pull-request-simple) with the fields the server keeps.
func (s *Server) prJSON(operation string, number int, p *pr) map[string]any {
	body := example(operation)
	body["number"] = number
	body["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d", s.Owner, s.Repo, number)
	body["user"] = s.userJSON(p.author)
	body["state"] = p.state
	hd := maps.Clone(body["head"].(map[string]any))
	hd["sha"] = p.head
	hd["ref"] = p.branch
	hd["label"] = strings.Split(p.headRepo, "/")[0] + ":" + p.branch
	hd["repo"] = s.repoJSON(hd["repo"].(map[string]any), p.headRepo)
	body["head"] = hd
	base := maps.Clone(body["base"].(map[string]any))
	base["repo"] = s.repoJSON(base["repo"].(map[string]any), s.Owner+"/"+s.Repo)
	body["base"] = base
	return body
}

// legacyPermission is the "permission" field: maintain reads as write and triage as read.
func legacyPermission(role string) string {
	switch role {
	case "maintain":
		return "write"
	case "triage":
		return "read"
	}
	return role
}

// page answers one page of a list with GitHub's Link header; only the items on it are rendered.
func page[T any](s *Server, r *http.Request, list []T, render func(T) map[string]any) reply {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	pg, _ := strconv.Atoi(q.Get("page"))
	pg = max(pg, 1)
	last := max((len(list)+per-1)/per, 1)
	from, to := min((pg-1)*per, len(list)), min(pg*per, len(list))
	h := http.Header{}
	link := func(n int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		q2 := r.URL.Query()
		q2.Set("page", strconv.Itoa(n))
		u.RawQuery = q2.Encode()
		return fmt.Sprintf(`<%s>; rel="%s"`, u.String(), rel)
	}
	var links []string
	switch {
	case s.paging == PagingRepeatNext:
		links = append(links, link(2, "next"))
	case s.paging == PagingEndless:
		links = append(links, link(pg+1, "next"))
	case pg < last:
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(pg-1, "prev"))
	}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	body := []any{}
	for _, it := range list[from:to] {
		body = append(body, render(it))
	}
	return reply{status: http.StatusOK, body: body, header: h}
}

func (s *Server) userJSON(login string) map[string]any {
	u := map[string]any{}
	for k, v := range example("issues.create-comment")["user"].(map[string]any) {
		u[k] = strings.ReplaceAll(fmt.Sprint(v), "octocat", login)
	}
	u["id"] = s.userID(login)
	u["site_admin"] = false
	u["type"] = "User"
	if strings.HasSuffix(login, "[bot]") {
		u["type"] = "Bot"
	}
	return u
}

func (s *Server) commentJSON(r *http.Request, c *Comment) map[string]any {
	body := example("issues.list-comments")
	body["id"] = c.ID
	body["node_id"] = fmt.Sprintf("IC_%d", c.ID)
	body["url"] = fmt.Sprintf("http://%s/repos/%s/%s/issues/comments/%d", r.Host, s.Owner, s.Repo, c.ID)
	body["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, c.PR, c.ID)
	body["issue_url"] = fmt.Sprintf("http://%s/repos/%s/%s/issues/%d", r.Host, s.Owner, s.Repo, c.PR)
	body["body"] = c.Body
	body["user"] = s.userJSON(c.Login)
	body["created_at"] = c.CreatedAt.Format(time.RFC3339)
	body["updated_at"] = c.UpdatedAt.Format(time.RFC3339)
	return body
}

func (s *Server) reviewJSON(rv *Review) map[string]any {
	body := example("pulls.list-reviews")
	body["id"] = rv.ID
	body["node_id"] = fmt.Sprintf("PRR_%d", rv.ID)
	body["user"] = s.userJSON(rv.Login)
	body["body"] = rv.Body
	body["state"] = rv.State
	body["commit_id"] = rv.CommitID
	body["submitted_at"] = rv.SubmittedAt.Format(time.RFC3339)
	body["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d#pullrequestreview-%d", s.Owner, s.Repo, rv.PR, rv.ID)
	return body
}

// ActionsBotID is the user id of github-actions[bot], as on github.com.
const ActionsBotID = 41898282

// UserID is the account id GitHub knows login by (GITHUB_ACTOR_ID of a run login started).
func (s *Server) UserID(login string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.userID(login)
}

// userID is the account id of login: stable for the server's life, distinct for every login.
func (s *Server) userID(login string) int64 {
	key := strings.ToLower(login)
	if key == "github-actions[bot]" {
		return ActionsBotID
	}
	id, ok := s.userIDs[key]
	if !ok {
		id = 583231 + int64(len(s.userIDs))
		s.userIDs[key] = id
	}
	return id
}

// repoJSON is a documented repository object renamed to fullName (owner/name).
func (s *Server) repoJSON(ex map[string]any, fullName string) map[string]any {
	owner, name, _ := strings.Cut(fullName, "/")
	repo := maps.Clone(ex)
	repo["full_name"], repo["name"] = fullName, name
	repo["html_url"] = "https://github.com/" + fullName
	repo["owner"] = s.userJSON(owner)
	repo["fork"] = fullName != s.Owner+"/"+s.Repo
	return repo
}

var reViewer = regexp.MustCompile(`^\s*(query\s*)?\{\s*viewer\s*\{\s*login\s+databaseId\s*\}\s*\}\s*$`)

// graphQL answers the GraphQL agent-hooks sends: the query viewer { login databaseId } (the
// account the token acts as, which GitHub tells an installation token too, while GET /user
// answers it 403), the mutation minimizeComment (see minimize) and the query of issue comments'
// edits by node id (see commentEdits).
func (s *Server) graphQL(r *http.Request) reply {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || strings.TrimSpace(in.Query) == "" {
		return reply{status: http.StatusOK, body: map[string]any{"errors": []any{map[string]any{"message": "A query attribute must be specified and must be a string."}}}}
	}
	if m := reMinimize.FindStringSubmatch(in.Query); m != nil {
		return s.minimize(m[1], in.Variables)
	}
	if reCommentEdits.MatchString(in.Query) {
		return s.commentEdits(in.Variables)
	}
	if !reViewer.MatchString(in.Query) {
		return reply{status: http.StatusOK, body: map[string]any{"errors": []any{map[string]any{"message": "the fake GitHub answers only { viewer { login databaseId } }, minimizeComment and the nodes query of issue comments' edits"}}}}
	}
	login := s.Identity()
	return reply{status: http.StatusOK, body: map[string]any{"data": map[string]any{"viewer": map[string]any{"login": login, "databaseId": s.userID(login)}}}}
}
