package github

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"

	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/redact"
)

// Target is the pull request an event is about.
type Target struct {
	Owner, Repo string
	Number      int
}

// Repository is "owner/repo".
func (t Target) Repository() string { return t.Owner + "/" + t.Repo }

func (t Target) String() string { return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.Number) }

// FindTarget works out the repository and pull request: from the Actions context first
// (GITHUB_REPOSITORY and the pull request of the event payload at GITHUB_EVENT_PATH), else from
// the hook payload (pullRequest: a number, "#12", a pull request URL or an object with number
// or html_url; prNumber) and the workspace's origin remote. A pull request URL in the payload
// names its repository too.
func FindTarget(getenv func(string) string, workspace string, p hooks.Payload) (Target, error) {
	t, _, err := findTarget(getenv, workspace, p)
	if err == nil && t.Number == 0 {
		err = errNoPR
	}
	return t, err
}

var errNoPR = errors.New("no pull request: run on a pull_request, pull_request_review or issue_comment event, or pass pullRequest or prNumber in the payload")

// findTarget is FindTarget without the error for a missing pull request number (0), and the
// Actions context it read.
func findTarget(getenv func(string) string, workspace string, p hooks.Payload) (Target, *githubactions.GitHubContext, error) {
	var t Target
	actx, err := githubactions.New(githubactions.WithGetenv(getenv)).Context()
	if err != nil {
		return t, nil, fmt.Errorf("read the Actions context: %w", err)
	}
	if getenv("GITHUB_REPOSITORY") != "" {
		t.Owner, t.Repo = actx.Repo()
	} else if repo, ok := actx.Event["repository"].(map[string]any); ok {
		t.Owner, t.Repo, _ = strings.Cut(template.FormatValue(repo["full_name"]), "/")
	}
	t.Number = eventPRNumber(actx.Event)
	if t.Number == 0 {
		owner, repo, n, err := payloadPR(p)
		if err != nil {
			return t, nil, err
		}
		t.Number = n
		if owner != "" {
			// A pull request URL's number belongs to its own repository, whatever the workflow's.
			t.Owner, t.Repo = owner, repo
		}
	}
	if t.Owner == "" || t.Repo == "" {
		owner, repo, err := originRepo(workspace)
		if err != nil {
			return t, nil, err
		}
		t.Owner, t.Repo = owner, repo
	}
	return t, actx, nil
}

// eventPRNumber finds the pull request of an Actions event payload: pull_request and
// pull_request_review events carry pull_request; issue_comment events on a pull request carry
// an issue with a pull_request key.
func eventPRNumber(ev map[string]any) int {
	if ev == nil {
		return 0
	}
	if pr, ok := ev["pull_request"].(map[string]any); ok {
		if n := toInt(pr["number"]); n > 0 {
			return n
		}
	}
	if is, ok := ev["issue"].(map[string]any); ok {
		if _, isPR := is["pull_request"]; isPR {
			return toInt(is["number"])
		}
	}
	return 0
}

func toInt(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case int64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(x), "#"))
		return n
	}
	if s := template.FormatValue(v); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	return 0
}

var prURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^https?://[^/]+/(?:api/v3/)?(?:repos/)?([^/]+)/([^/]+)/pulls?/(\d+)`)
})

// payloadPR reads pullRequest or prNumber from the hook payload.
func payloadPR(p hooks.Payload) (owner, repo string, number int, err error) {
	v, ok := p["pullRequest"]
	if !ok {
		v, ok = p["prNumber"]
	}
	if !ok || v == nil {
		return "", "", 0, nil
	}
	if m, isMap := v.(map[string]any); isMap {
		u := m["html_url"]
		if u == nil {
			u = m["url"]
		}
		if n := toInt(m["number"]); n > 0 {
			if um := prURL().FindStringSubmatch(template.FormatValue(u)); um != nil {
				return um[1], um[2], n, nil
			}
			return "", "", n, nil
		}
		v = u
	}
	s := template.FormatValue(v)
	if m := prURL().FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[3])
		return m[1], m[2], n, nil
	}
	if n := toInt(v); n > 0 {
		return "", "", n, nil
	}
	return "", "", 0, fmt.Errorf("payload pullRequest %q is not a pull request number or URL", s)
}

// originRepo reads owner and repository from the origin remote of the workspace's repository.
func originRepo(workspace string) (owner, repo string, err error) {
	origin, err := gitops.Origin(workspace)
	switch {
	case errors.Is(err, gitops.ErrNotRepository):
		return "", "", fmt.Errorf("find the repository: no GITHUB_REPOSITORY and no git repository at %s: %w", workspace, err)
	case errors.Is(err, gitops.ErrNoRemote):
		return "", "", fmt.Errorf("find the repository: no GITHUB_REPOSITORY and no origin remote: %w", err)
	case err != nil:
		return "", "", fmt.Errorf("find the repository: no GITHUB_REPOSITORY, and the origin remote cannot be used: %w", err)
	}
	owner, repo, ok := ParseRemoteURL(origin)
	if !ok {
		return "", "", fmt.Errorf("find the repository: cannot read owner/repo from origin %q", redact.URL(origin))
	}
	return owner, repo, nil
}

// ParseRemoteURL reads owner and repository from a git remote URL: https://host/o/r(.git),
// ssh://git@host/o/r.git or the scp-like git@host:o/r.git.
func ParseRemoteURL(raw string) (owner, repo string, ok bool) {
	var path string
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		path = u.Path
	} else if i := strings.Index(raw, ":"); i > 0 && !strings.Contains(raw[:i], "/") {
		path = raw[i+1:]
	} else {
		return "", "", false
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git"), "/"), "/")
	if len(parts) < 2 || parts[len(parts)-2] == "" || parts[len(parts)-1] == "" {
		return "", "", false
	}
	return parts[len(parts)-2], parts[len(parts)-1], true
}
