package githubtest

import (
	"fmt"
	"net/http"
	"strings"
)

// AddTeam creates the team org/slug (or adds to it) with members, whose membership is active.
func (s *Server) AddTeam(org, slug string, members ...string) {
	for _, m := range members {
		s.SetTeamMembership(org, slug, m, "active")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.team(org, slug, true)
}

// SetTeamMembership sets login's membership of the team org/slug: "active", "pending" (invited,
// not yet accepted) or "" (none).
func (s *Server) SetTeamMembership(org, slug, login, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.team(org, slug, true)
	if state == "" {
		delete(t, strings.ToLower(login))
		return
	}
	t[strings.ToLower(login)] = state
}

// team is the members of org/slug (nil if there is no such team and create is false).
func (s *Server) team(org, slug string, create bool) map[string]string {
	if s.teams == nil {
		s.teams = map[string]map[string]string{}
	}
	key := strings.ToLower(org + "/" + slug)
	t := s.teams[key]
	if t == nil && create {
		t = map[string]string{}
		s.teams[key] = t
	}
	return t
}

// teamsHidden reports whether the token cannot see teams: GITHUB_TOKEN can never be granted the
// organization's members permission, and GitHub answers it 404 on every team endpoint (a GitHub
// App without members: read gets 403, see denied).
func (s *Server) teamsHidden() bool { return s.user == "" && s.appBot == "" }

// getTeam answers GET /orgs/{org}/teams/{team_slug}.
func (s *Server) getTeam(org, slug string) reply {
	if s.teamsHidden() || s.team(org, slug, false) == nil {
		return apiError(http.StatusNotFound, "Not Found", "https://docs.github.com/rest/teams/teams#get-a-team-by-name")
	}
	body := example("teams.get-by-name")
	body["slug"], body["name"] = slug, slug
	body["html_url"] = fmt.Sprintf("https://github.com/orgs/%s/teams/%s", org, slug)
	return reply{status: http.StatusOK, body: body}
}

// teamMembership answers GET /orgs/{org}/teams/{team_slug}/memberships/{username}: 404 for a
// user who is not a member, as for a team the token cannot see.
func (s *Server) teamMembership(org, slug, login string) reply {
	const doc = "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user"
	t := s.team(org, slug, false)
	state, ok := t[strings.ToLower(login)]
	if s.teamsHidden() || !ok {
		return apiError(http.StatusNotFound, "Not Found", doc)
	}
	body := example("teams.get-membership-for-user-in-org")
	body["url"] = fmt.Sprintf("https://api.github.com/teams/1/memberships/%s", login)
	body["role"], body["state"] = "member", state
	return reply{status: http.StatusOK, body: body}
}
