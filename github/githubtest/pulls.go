package githubtest

import (
	"net/http"
	"slices"
	"strings"
)

// numbers are the pull requests' numbers, in order.
func (s *Server) numbers() []int {
	var ns []int
	for n := range s.prs {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// commitPulls answers GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls: the pull requests
// whose branch has had the commit (a prefix of at least 4 digits names it too, as on GitHub).
func (s *Server) commitPulls(r *http.Request, sha string) reply {
	sha = strings.ToLower(sha)
	var list []int
	for _, n := range s.numbers() {
		if slices.ContainsFunc(s.prs[n].heads, func(h string) bool { return strings.HasPrefix(strings.ToLower(h), sha) }) {
			list = append(list, n)
		}
	}
	return page(s, r, list, func(n int) map[string]any {
		return s.prJSON("repos.list-pull-requests-associated-with-commit", n, s.prs[n])
	})
}

// listPulls answers GET /repos/{owner}/{repo}/pulls with its state (open, closed, all; default
// open) and head (owner:branch) filters.
func (s *Server) listPulls(r *http.Request) reply {
	q := r.URL.Query()
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		return apiError(http.StatusUnprocessableEntity, "Validation Failed", "https://docs.github.com/rest/pulls/pulls#list-pull-requests")
	}
	var list []int
	for _, n := range s.numbers() {
		p := s.prs[n]
		if state != "all" && p.state != state {
			continue
		}
		if head := q.Get("head"); head != "" {
			owner, branch, ok := strings.Cut(head, ":")
			if !ok || !strings.EqualFold(owner, strings.Split(p.headRepo, "/")[0]) || branch != p.branch {
				continue
			}
		}
		list = append(list, n)
	}
	return page(s, r, list, func(n int) map[string]any { return s.prJSON("pulls.list", n, s.prs[n]) })
}
