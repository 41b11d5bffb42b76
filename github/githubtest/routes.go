package githubtest

import (
	"net/http"
	"regexp"
	"strings"
)

// The operations beyond the pull request's own: teams, pull requests by commit or branch, and
// the Git Data API (gitdata.go).
var (
	reTeam           = regexp.MustCompile(`^/orgs/([^/]+)/teams/([^/]+)$`)
	reTeamMembership = regexp.MustCompile(`^/orgs/([^/]+)/teams/([^/]+)/memberships/([^/]+)$`)
	reCommitPulls    = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/commits/([0-9a-fA-F]{4,40})/pulls$`)
	rePulls          = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls$`)
	reBlobs          = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/blobs$`)
	reTrees          = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/trees$`)
	reCommits        = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/commits$`)
	reCommit         = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/commits/([0-9a-fA-F]{40})$`)
	reGetRef         = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/ref/(heads/.+)$`)
	reRefs           = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/refs$`)
	reRef            = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/git/refs/(heads/.+)$`)
)

// moreOperation is operation for the endpoints of this file.
func moreOperation(method, path string) (doc, permissions string) {
	const docs = "https://docs.github.com/rest/"
	write := method != http.MethodGet
	switch {
	case reTeam.MatchString(path):
		return docs + "teams/teams#get-a-team-by-name", "members=read"
	case reTeamMembership.MatchString(path):
		return docs + "teams/members#get-team-membership-for-a-user", "members=read"
	case reCommitPulls.MatchString(path):
		return docs + "commits/commits#list-pull-requests-associated-with-a-commit", "contents=read; pull_requests=read"
	case rePulls.MatchString(path):
		return docs + "pulls/pulls#list-pull-requests", "pull_requests=read"
	case reBlobs.MatchString(path):
		return docs + "git/blobs#create-a-blob", "contents=write"
	case reTrees.MatchString(path):
		return docs + "git/trees#create-a-tree", "contents=write"
	case reCommits.MatchString(path):
		return docs + "git/commits#create-a-commit", "contents=write"
	case reCommit.MatchString(path):
		return docs + "git/commits#get-a-commit-object", "contents=read"
	case reGetRef.MatchString(path):
		return docs + "git/refs#get-a-reference", "contents=read"
	case reRefs.MatchString(path):
		return docs + "git/refs#create-a-reference", "contents=write"
	case reRef.MatchString(path) && write:
		return docs + "git/refs#update-a-reference", "contents=write"
	}
	return docs, ""
}

// SetTokenPermissions limits what the token may do to perms, as a fine-grained token or
// GITHUB_TOKEN's `permissions:` grant them: "contents=read,pull_requests=write" (a permission
// not named is not granted; write includes read). Every operation whose accepted permissions
// (X-Accepted-GitHub-Permissions) the token lacks then answers GitHub's 403. An empty perms grants
// everything again.
func (s *Server) SetTokenPermissions(perms string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants = nil
	if strings.TrimSpace(perms) == "" {
		return
	}
	s.grants = map[string]string{}
	for _, p := range strings.Split(perms, ",") {
		name, level, _ := strings.Cut(strings.TrimSpace(p), "=")
		s.grants[name] = level
	}
}

// granted reports whether the token has permission at level (read or write).
func (s *Server) granted(permission, level string) bool {
	if s.grants == nil {
		return true
	}
	have := s.grants[permission]
	return have == "write" || have == level && level == "read"
}

// denied answers a request the token's permissions do not allow, as GitHub does: 403 "Resource
// not accessible by integration" with the permissions the operation accepts.
func (s *Server) denied(method, path string) (reply, bool) {
	doc, accepted := operation(method, path)
	if s.grants == nil || accepted == "" {
		return reply{}, false
	}
	for _, set := range strings.Split(accepted, ";") {
		ok := true
		for _, p := range strings.Split(set, ",") {
			name, level, _ := strings.Cut(strings.TrimSpace(p), "=")
			ok = ok && s.granted(name, level)
		}
		if ok {
			return reply{}, false
		}
	}
	rep := apiError(http.StatusForbidden, "Resource not accessible by integration", doc)
	rep.header = http.Header{"X-Accepted-Github-Permissions": {accepted}}
	return rep, true
}

// handleMore answers the operations of moreOperation.
func (s *Server) handleMore(r *http.Request, path string) (reply, bool) {
	if m := reTeam.FindStringSubmatch(path); m != nil && r.Method == http.MethodGet {
		return s.getTeam(m[1], m[2]), true
	}
	if m := reTeamMembership.FindStringSubmatch(path); m != nil && r.Method == http.MethodGet {
		return s.teamMembership(m[1], m[2], m[3]), true
	}
	for _, re := range []*regexp.Regexp{reCommitPulls, rePulls, reBlobs, reTrees, reCommits, reCommit, reGetRef, reRefs, reRef} {
		m := re.FindStringSubmatch(path)
		if m == nil {
			continue
		}
		if m[1] != s.Owner || m[2] != s.Repo {
			return notFound(), true
		}
		switch {
		case re == reCommitPulls && r.Method == http.MethodGet:
			return s.commitPulls(r, m[3]), true
		case re == rePulls && r.Method == http.MethodGet:
			return s.listPulls(r), true
		case re == rePulls:
			return reply{}, false
		}
		return s.gitData(r, re, m), true
	}
	return reply{}, false
}
