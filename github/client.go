// Package github owns everything agent-hooks does on GitHub: the REST client (go-github, with
// GITHUB_API_URL, rate-limit back-off and ETag caching), finding the repository and pull request
// an event is about, the "github" approval provider (a PR comment answered by reviews or
// /approve and /reject comments), the github-review and github-comment hook types, and the
// Actions side of `agent-hooks action` (inputs, outputs, step summary, annotations) through
// go-githubactions.
//
// Nothing here reads process-wide state: the environment comes from the hook invocation or the
// caller, and every network client can be handed a transport.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autoagent/agent-hooks/internal/httpx"
	"github.com/autoagent/agent-hooks/internal/redact"
)

// DefaultAPIURL is used when GITHUB_API_URL is not set.
const DefaultAPIURL = "https://api.github.com/"

// Options is how the GitHub hook types reach GitHub. The zero value talks to the network with
// http.DefaultTransport and sleeps for real.
type Options struct {
	// Transport carries every request; nil means http.DefaultTransport.
	Transport http.RoundTripper
	// Sleep waits between polls and before retrying a rate-limited request; nil sleeps for real
	// (and returns early with ctx's error).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RequestTimeout bounds each request, its answer read whole; 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
}

// DefaultRequestTimeout is how long one request may take before GitHub counts as not answering.
const DefaultRequestTimeout = 30 * time.Second

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) sleep(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	return httpx.Sleep(ctx, d)
}

// ErrNoToken is returned when neither GITHUB_TOKEN nor GH_TOKEN is set.
var ErrNoToken = errors.New("no GitHub token: set GITHUB_TOKEN or GH_TOKEN (in a workflow, pass the action's github-token input)")

// Client is a go-github client with the habits agent-hooks needs: every call retried after a
// primary or secondary rate limit, GET responses revalidated with ETags, errors turned into one
// readable line. A Client is safe for concurrent use.
type Client struct {
	gh      *gh.Client
	cache   *etagCache
	opts    Options
	retries int
	secrets []string // never in an error: the token, the credentials of GITHUB_API_URL

	mu    sync.Mutex
	self  *account // the account the token acts as; nil until known
	perms map[string]string
	teams map[string]string // "org/slug": visible; "org/slug login": membership state
	rate  gh.Rate
}

// account is a GitHub account: its login and its id, which never changes.
type account struct {
	login string
	id    int64
}

// is reports whether u is this account: by id when both are known, else by login (logins are
// case-insensitive).
func (a account) is(u *gh.User) bool {
	if a.id != 0 && u.GetID() != 0 {
		return a.id == u.GetID()
	}
	return u.GetLogin() != "" && sameLogin(u.GetLogin(), a.login)
}

// Rate is the core rate limit GitHub reported with the latest response.
func (c *Client) Rate() gh.Rate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rate
}

// NewClient returns a client for the API at apiURL ("" means DefaultAPIURL) that authenticates
// with token.
func NewClient(token, apiURL string, o Options) (*Client, error) {
	if token == "" {
		return nil, ErrNoToken
	}
	secrets := append([]string{token}, redact.URLSecrets(apiURL)...)
	base, err := apiBaseURL(apiURL)
	if err != nil {
		return nil, redact.Error(err, secrets)
	}
	// Credentials in GITHUB_API_URL are never sent (the token is) and must not be quoted in
	// errors, which carry the request URL.
	base.User = nil
	tr := o.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	cache := &etagCache{base: tr, entries: map[string]*cacheEntry{}}
	timeout := o.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	c := gh.NewClient(&http.Client{Transport: cache, Timeout: timeout}).WithAuthToken(token)
	// Set BaseURL directly: GITHUB_API_URL is already the API root (https://api.github.com or
	// https://HOST/api/v3), and WithEnterpriseURLs would append api/v3/ to any other URL.
	c.BaseURL = base
	return &Client{gh: c, cache: cache, opts: o, retries: 5, secrets: secrets, perms: map[string]string{}, teams: map[string]string{}}, nil
}

// NewClientFromEnv builds a client from GITHUB_TOKEN (else GH_TOKEN) and GITHUB_API_URL.
func NewClientFromEnv(getenv func(string) string, o Options) (*Client, error) {
	token, secrets := envToken(getenv)
	c, err := NewClient(token, getenv("GITHUB_API_URL"), o)
	if err != nil {
		return nil, redact.Error(err, secrets)
	}
	c.secrets = append(c.secrets, secrets...)
	return c, nil
}

// envToken is GITHUB_TOKEN, else GH_TOKEN, and both as secrets: the token not sent is no less
// secret. A token read from a file (GITHUB_TOKEN=$(cat token)) may end in a newline, which
// net/http refuses in a header.
func envToken(getenv func(string) string) (string, []string) {
	ghToken, ghCLIToken := strings.TrimSpace(getenv("GITHUB_TOKEN")), strings.TrimSpace(getenv("GH_TOKEN"))
	token := ghToken
	if token == "" {
		token = ghCLIToken
	}
	return token, []string{ghToken, ghCLIToken}
}

func apiBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q is not an absolute URL", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// CacheStats reports how many GET requests were answered 304 Not Modified from the ETag cache,
// and how many requests were sent in all.
func (c *Client) CacheStats() (notModified, requests int64) {
	return c.cache.notModified.Load(), c.cache.requests.Load()
}

// call runs one API request, waiting and retrying while GitHub reports a rate limit. what names
// the request in errors ("list comments of octo/repo#12"). Every error of every request passes
// here, and leaves without a secret: a server or proxy may echo the Authorization header in its
// message, a transport error quotes the request URL.
func (c *Client) call(ctx context.Context, what string, f func() (*gh.Response, error)) error {
	err := c.retry(ctx, what, f)
	if apiErr, ok := err.(*APIError); ok {
		apiErr.Msg = redact.String(apiErr.Msg, c.secrets)
		return apiErr
	}
	return redact.Error(err, c.secrets)
}

// retry is call without the scrubbing.
func (c *Client) retry(ctx context.Context, what string, f func() (*gh.Response, error)) error {
	for attempt := 0; ; attempt++ {
		resp, err := f()
		if resp != nil && resp.Rate.Limit > 0 {
			c.mu.Lock()
			c.rate = resp.Rate
			c.mu.Unlock()
		}
		if err == nil {
			return nil
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		wait, limited := rateLimitWait(err, c.opts.now())
		if !limited {
			return describe(what, err)
		}
		if attempt >= c.retries {
			return fmt.Errorf("%s: still rate limited by GitHub after %d retries", what, attempt)
		}
		if dl, ok := ctx.Deadline(); ok && c.opts.now().Add(wait).After(dl) {
			return fmt.Errorf("%s: rate limited by GitHub for %s, past the hook's deadline", what, roundDuration(wait))
		}
		if err := c.opts.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
}

// defaultBackoff is the wait after a rate limit that says nothing about when it ends.
const defaultBackoff = 60 * time.Second

// rateLimitWait says whether err is a rate limit and how long to wait before retrying. go-github
// maps a 403 with X-RateLimit-Remaining: 0 to RateLimitError and a documented secondary limit to
// AbuseRateLimitError, but a 429 (and a 403 that only carries Retry-After) arrive as a plain
// ErrorResponse.
func rateLimitWait(err error, now time.Time) (time.Duration, bool) {
	var (
		primary   *gh.RateLimitError
		secondary *gh.AbuseRateLimitError
		plain     *gh.ErrorResponse
	)
	switch {
	case errors.As(err, &primary):
		return max(primary.Rate.Reset.Sub(now), 0), true
	case errors.As(err, &secondary):
		if secondary.RetryAfter != nil {
			return max(*secondary.RetryAfter, 0), true
		}
		return defaultBackoff, true
	case errors.As(err, &plain) && plain.Response != nil:
		h := plain.Response.Header
		code := plain.Response.StatusCode
		if code != http.StatusTooManyRequests && !(code == http.StatusForbidden && h.Get("Retry-After") != "") {
			return 0, false
		}
		if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil {
			return time.Duration(max(s, 0)) * time.Second, true
		}
		if s, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil && h.Get("X-RateLimit-Remaining") == "0" {
			return max(time.Unix(s, 0).Sub(now), 0), true
		}
		return defaultBackoff, true
	}
	return 0, false
}

// describe turns a failed request into one line that says what failed and what to do about it:
// the status and the request GitHub answered, GitHub's message, and the permission to grant as a
// workflow's `permissions:` spells it. Client.call scrubs the
// secrets in play from whatever the server echoed.
func describe(what string, err error) error {
	var (
		e      *gh.ErrorResponse
		urlErr *url.Error
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &urlErr) && urlErr.Timeout():
		return fmt.Errorf("%s: GitHub did not answer in time", what)
	case errors.As(err, &urlErr):
		u, _ := url.Parse(urlErr.URL)
		where := urlErr.URL
		if u != nil {
			where = u.Scheme + "://" + u.Host
		}
		return fmt.Errorf("%s: cannot reach GitHub at %s: %v; check GITHUB_API_URL and the network", what, where, urlErr.Err)
	case !errors.As(err, &e) || e.Response == nil:
		return fmt.Errorf("%s: %w", what, err)
	}
	code := e.Response.StatusCode
	msg := fmt.Sprintf("%s: %d from %s (%s)", what, code, request(e.Response), oneLine(e.Message))
	switch code {
	case http.StatusUnauthorized:
		msg += ": the GitHub token is invalid or expired"
	case http.StatusForbidden:
		msg += ": " + missingPermission(e.Response.Header.Get("X-Accepted-GitHub-Permissions"))
	case http.StatusNotFound:
		msg += ": check the repository and pull request number, and that the token can see them"
	}
	return &APIError{Status: code, Msg: msg}
}

// request names the request a response answers: "POST /repos/o/r/issues/5/comments".
func request(resp *http.Response) string {
	if resp.Request == nil || resp.Request.URL == nil {
		return "GitHub"
	}
	return resp.Request.Method + " " + resp.Request.URL.Path
}

// missingPermission explains a 403 by the permissions GitHub says the operation accepts
// (X-Accepted-GitHub-Permissions: "issues=write; pull_requests=write", any one set enough), in the
// words of a workflow's `permissions:` key.
func missingPermission(accepted string) string {
	var sets []string
	suggest := ""
	for _, set := range strings.Split(accepted, ";") {
		var perms []string
		for _, p := range strings.Split(set, ",") {
			name, level, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || name == "" {
				continue
			}
			perms = append(perms, strings.ReplaceAll(name, "_", "-")+": "+level)
		}
		if len(perms) == 0 {
			continue
		}
		sets = append(sets, strings.Join(perms, " and "))
		if suggest == "" || strings.Contains(set, "pull_requests") {
			suggest = strings.Join(perms, ", ")
		}
	}
	if len(sets) == 0 {
		return "GitHub refused the token; it needs pull-requests: write and issues: write (a workflow's `permissions:`; the repo scope for a classic token)"
	}
	return fmt.Sprintf("the token lacks %s; add `permissions: %s` to the job", strings.Join(sets, " or "), suggest)
}

// APIError is a GitHub API failure described in one line.
type APIError struct {
	Status int
	Msg    string
}

func (e *APIError) Error() string { return e.Msg }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "no message"
	}
	return s
}

// IsSelf reports whether u is the account the token acts as, so that its own comments are found
// again and never count as a human's answer. The account is learnt exactly, never guessed: GET
// /user answers a user's token; an installation token (GITHUB_TOKEN, a GitHub App's) gets 403
// there, and GraphQL's viewer answers it with the App's bot account (github-actions[bot] for
// GITHUB_TOKEN); a comment the token just made tells it too. Logins ending in [bot] belong to
// GitHub Apps and an App's login is its own, so no other App or person can pass for it; accounts
// are compared by id.
func (c *Client) IsSelf(ctx context.Context, u *gh.User) (bool, error) {
	c.mu.Lock()
	self := c.self
	c.mu.Unlock()
	if self == nil {
		me, err := c.whoAmI(ctx)
		if err != nil {
			return false, fmt.Errorf("tell which account the token acts as: %w", err)
		}
		c.mu.Lock()
		if c.self == nil {
			c.self = &me
		}
		self = c.self
		c.mu.Unlock()
	}
	return self.is(u), nil
}

// whoAmI asks GitHub which account the token acts as.
func (c *Client) whoAmI(ctx context.Context) (account, error) {
	var me *gh.User
	err := c.call(ctx, "get the token's user", func() (r *gh.Response, err error) {
		me, r, err = c.gh.Users.Get(ctx, "")
		return r, err
	})
	var apiErr *APIError
	switch {
	case err == nil:
		return account{login: me.GetLogin(), id: me.GetID()}, nil
	case !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden:
		return account{}, err
	}
	// "Resource not accessible by integration": an installation token, which GraphQL's viewer
	// answers.
	var out struct {
		Viewer struct {
			Login      string `json:"login"`
			DatabaseID int64  `json:"databaseId"`
		} `json:"viewer"`
	}
	if err := c.graphQL(ctx, "ask GraphQL's viewer", "{ viewer { login databaseId } }", nil, &out); err != nil {
		return account{}, err
	}
	if out.Viewer.Login == "" {
		return account{}, errors.New("GraphQL viewer: no login in the answer")
	}
	return account{login: out.Viewer.Login, id: out.Viewer.DatabaseID}, nil
}

// learnIdentity records the author of a comment the token just made: the token's own account.
func (c *Client) learnIdentity(u *gh.User) {
	if u.GetLogin() == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.self == nil {
		c.self = &account{login: u.GetLogin(), id: u.GetID()}
	}
}

// Permission is the user's permission on the repository (admin, maintain, write, triage, read
// or none). A user GitHub does not know has none.
func (c *Client) Permission(ctx context.Context, t Target, login string) (string, error) {
	key := strings.ToLower(login)
	c.mu.Lock()
	p, ok := c.perms[key]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	var lvl *gh.RepositoryPermissionLevel
	err := c.call(ctx, fmt.Sprintf("get the permission of %s on %s", login, t.Repository()), func() (r *gh.Response, err error) {
		lvl, r, err = c.gh.Repositories.GetPermissionLevel(ctx, t.Owner, t.Repo, login)
		return r, err
	})
	var apiErr *APIError
	switch {
	case err == nil:
		p = lvl.GetPermission()
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound:
		p = "none"
	default:
		return "", err
	}
	c.mu.Lock()
	c.perms[key] = p
	c.mu.Unlock()
	return p, nil
}

// PullRequest fetches the pull request (its head commit changes as commits are pushed).
func (c *Client) PullRequest(ctx context.Context, t Target) (*gh.PullRequest, error) {
	var pr *gh.PullRequest
	err := c.call(ctx, "get pull request "+t.String(), func() (r *gh.Response, err error) {
		pr, r, err = c.gh.PullRequests.Get(ctx, t.Owner, t.Repo, t.Number)
		return r, err
	})
	return pr, err
}

// pageSize is the most GitHub returns per page.
const pageSize = 100

// maxPages bounds how many pages one list reads (10,000 items): a longer list is an error
// rather than a read without end.
const maxPages = 100

// Comments lists every comment of the pull request updated at or after since (zero: all),
// following the Link headers through every page.
func (c *Client) Comments(ctx context.Context, t Target, since time.Time) ([]*gh.IssueComment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: pageSize}}
	if !since.IsZero() {
		s := since.UTC()
		opts.Since = &s
	}
	return collect(ctx, c, "list the comments of "+t.String(), &opts.ListOptions, func() ([]*gh.IssueComment, *gh.Response, error) {
		return c.gh.Issues.ListComments(ctx, t.Owner, t.Repo, t.Number, opts)
	})
}

// Reviews lists every review of the pull request, oldest first, through every page.
func (c *Client) Reviews(ctx context.Context, t Target) ([]*gh.PullRequestReview, error) {
	opts := &gh.ListOptions{PerPage: pageSize}
	return collect(ctx, c, "list the reviews of "+t.String(), opts, func() ([]*gh.PullRequestReview, *gh.Response, error) {
		return c.gh.PullRequests.ListReviews(ctx, t.Owner, t.Repo, t.Number, opts)
	})
}

// collect calls list for every page, moving page.Page along the Link header's next page (and past
// a full page revalidated from the ETag cache, whose Link header may be out of date). Paging that
// does not advance — a next page already read, an empty page that links another — and a list of
// more than maxPages pages are errors: nothing is decided on a list that was not read whole.
func collect[T any](ctx context.Context, c *Client, what string, page *gh.ListOptions, list func() ([]T, *gh.Response, error)) ([]T, error) {
	var all []T
	read := map[int]bool{}
	for {
		var (
			items []T
			resp  *gh.Response
		)
		err := c.call(ctx, what, func() (r *gh.Response, err error) {
			items, resp, err = list()
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		current := max(page.Page, 1)
		read[current] = true
		all = append(all, items...)
		next := resp.NextPage
		if next == 0 && len(items) == page.PerPage && resp.Header.Get(revalidatedHeader) != "" {
			// A full page revalidated from the cache: more may have come since it was first read.
			next = current + 1
		}
		switch {
		case next == 0:
			return all, nil
		case read[next]:
			return nil, fmt.Errorf("%s: GitHub's paging does not advance: page %d's rel=\"next\" link leads back to page %d, already read", what, current, next)
		case len(items) == 0:
			return nil, fmt.Errorf("%s: GitHub's paging does not advance: page %d is empty but links a next page", what, current)
		case len(read) >= maxPages:
			return nil, fmt.Errorf("%s: more than %d pages of %d; not read further", what, maxPages, page.PerPage)
		}
		page.Page = next
	}
}

// CreateComment posts a comment on the pull request.
func (c *Client) CreateComment(ctx context.Context, t Target, body string) (*gh.IssueComment, error) {
	var out *gh.IssueComment
	err := c.call(ctx, "comment on "+t.String(), func() (r *gh.Response, err error) {
		out, r, err = c.gh.Issues.CreateComment(ctx, t.Owner, t.Repo, t.Number, &gh.IssueComment{Body: &body})
		return r, err
	})
	if err == nil {
		c.learnIdentity(out.GetUser())
	}
	return out, err
}

// EditComment replaces the body of a comment.
func (c *Client) EditComment(ctx context.Context, t Target, id int64, body string) (*gh.IssueComment, error) {
	var out *gh.IssueComment
	err := c.call(ctx, fmt.Sprintf("edit comment %d on %s", id, t.String()), func() (r *gh.Response, err error) {
		out, r, err = c.gh.Issues.EditComment(ctx, t.Owner, t.Repo, id, &gh.IssueComment{Body: &body})
		return r, err
	})
	return out, err
}

// CreateReview submits a review (event APPROVE, REQUEST_CHANGES or COMMENT) on commit.
func (c *Client) CreateReview(ctx context.Context, t Target, commit, event, body string) (*gh.PullRequestReview, error) {
	req := &gh.PullRequestReviewRequest{Event: &event, Body: &body}
	if commit != "" {
		req.CommitID = &commit
	}
	var out *gh.PullRequestReview
	err := c.call(ctx, "review "+t.String(), func() (r *gh.Response, err error) {
		out, r, err = c.gh.PullRequests.CreateReview(ctx, t.Owner, t.Repo, t.Number, req)
		return r, err
	})
	return out, err
}
