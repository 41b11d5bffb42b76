package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"

	gh "github.com/google/go-github/v60/github"
)

// Team is an organization's team, as approverTeams names it: "org/team-slug".
type Team struct{ Org, Slug string }

func (t Team) String() string { return t.Org + "/" + t.Slug }

var teamName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^@?([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)/([A-Za-z0-9_.-]+)$`)
})

// ParseTeam reads "org/team-slug" (or "@org/team-slug", as GitHub mentions a team).
func ParseTeam(s string) (Team, error) {
	m := teamName().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Team{}, fmt.Errorf("%q is not a team: want org/team-slug", s)
	}
	return Team{Org: m[1], Slug: m[2]}, nil
}

// teamAccess says what a token needs to read team membership, for the error of a team the
// token cannot see.
const teamAccess = "reading team membership needs a GitHub App's installation token with the organization permission Members: read, " +
	"or a personal access token with read:org (fine-grained: the organization's Members: read); " +
	"GITHUB_TOKEN cannot be granted it, and GitHub answers it 404"

// CheckTeam makes sure the team exists and the token can read it. GitHub answers 404 both for a
// team that does not exist and for one the token may not see, so a membership's 404 only means
// "not a member" once this succeeded.
func (c *Client) CheckTeam(ctx context.Context, t Team) error {
	key := strings.ToLower(t.String())
	c.mu.Lock()
	_, ok := c.teams[key]
	c.mu.Unlock()
	if ok {
		return nil
	}
	err := c.call(ctx, "get the team "+t.String(), func() (r *gh.Response, err error) {
		_, r, err = c.gh.Teams.GetTeamBySlug(ctx, t.Org, t.Slug)
		return r, err
	})
	if err != nil {
		return teamError(t, err)
	}
	c.mu.Lock()
	c.teams[key] = "visible"
	c.mu.Unlock()
	return nil
}

// teamError explains a team endpoint's 403 or 404 by the permission it needs (a workflow's
// `permissions:` cannot grant it, so the generic advice would mislead).
func teamError(t Team, err error) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden && apiErr.Status != http.StatusNotFound {
		return err
	}
	what := "GitHub answered 403: the token may not read it"
	if apiErr.Status == http.StatusNotFound {
		what = "GitHub answered 404: the team does not exist, or the token cannot see it"
	}
	return &APIError{Status: apiErr.Status, Msg: fmt.Sprintf("approverTeams %s: %s; %s", t, what, teamAccess)}
}

// TeamMember reports whether login is an active member of the team (members of its child teams
// are too; an invitation not yet accepted is not). CheckTeam must have succeeded first.
func (c *Client) TeamMember(ctx context.Context, t Team, login string) (bool, error) {
	key := strings.ToLower(t.String() + " " + login)
	c.mu.Lock()
	state, ok := c.teams[key]
	c.mu.Unlock()
	if ok {
		return state == "active", nil
	}
	var m *gh.Membership
	err := c.call(ctx, fmt.Sprintf("get the membership of %s in the team %s", login, t), func() (r *gh.Response, err error) {
		m, r, err = c.gh.Teams.GetTeamMembershipBySlug(ctx, t.Org, t.Slug, login)
		return r, err
	})
	var apiErr *APIError
	switch {
	case err == nil:
		state = m.GetState()
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound:
		state = "none"
	default:
		return false, teamError(t, err)
	}
	c.mu.Lock()
	c.teams[key] = state
	c.mu.Unlock()
	return state == "active", nil
}
