package gitops

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Person is a name and an email; either may be empty to be resolved.
type Person struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// actionsBot is the identity of commits made in GitHub Actions when nothing else is configured.
var actionsBot = Person{Name: "github-actions[bot]", Email: "41898282+github-actions[bot]@users.noreply.github.com"}

// identity resolves the author (role "author") or committer (role "committer") of a commit, field
// by field: the hook's configuration, then git config (author.* / committer.*, then user.*), then
// GIT_AUTHOR_* / GIT_COMMITTER_*, then — in GitHub Actions — github-actions[bot]; fallback (the
// hook's author, for the committer) comes last. The date is GIT_<ROLE>_DATE when set, else now.
func (r *Repo) identity(role string, configured, fallback Person, now time.Time) (object.Signature, error) {
	env := "GIT_" + strings.ToUpper(role) + "_"
	pick := func(hook, key string) string {
		for _, v := range []string{hook, r.cfg.Get(role, "", key), r.cfg.Get("user", "", key), r.env.getenv(env + strings.ToUpper(key))} {
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
		return ""
	}
	p := Person{Name: pick(configured.Name, "name"), Email: pick(configured.Email, "email")}
	if p.Name == "" || p.Email == "" {
		if r.env.getenv("GITHUB_ACTIONS") == "true" {
			if p.Name == "" {
				p.Name = actionsBot.Name
			}
			if p.Email == "" {
				p.Email = actionsBot.Email
			}
		}
		if p.Name == "" {
			p.Name = fallback.Name
		}
		if p.Email == "" {
			p.Email = fallback.Email
		}
	}
	if p.Name == "" || p.Email == "" {
		return object.Signature{}, fmt.Errorf("no %s identity: set %q in the hook, user.name and user.email in git config, or %sNAME and %sEMAIL", role, role, env, env)
	}
	when := now
	if d := r.env.getenv(env + "DATE"); d != "" {
		t, err := parseGitDate(d)
		if err != nil {
			return object.Signature{}, fmt.Errorf("%sDATE: %w", env, err)
		}
		when = t
	}
	return object.Signature{Name: p.Name, Email: p.Email, When: when}, nil
}

// parseGitDate reads the date formats git accepts in GIT_AUTHOR_DATE: its internal "<unix> <tz>"
// (optionally with @), RFC 2822 and ISO 8601.
func parseGitDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if secs, tz, ok := strings.Cut(strings.TrimPrefix(s, "@"), " "); ok || strings.HasPrefix(s, "@") {
		if n, err := strconv.ParseInt(secs, 10, 64); err == nil {
			loc := time.UTC
			if tz != "" {
				t, err := time.Parse("-0700", tz)
				if err != nil {
					return time.Time{}, fmt.Errorf("bad time zone in %q", s)
				}
				loc = t.Location()
			}
			return time.Unix(n, 0).In(loc), nil
		}
	}
	for _, layout := range []string{time.RFC1123Z, time.RFC3339, "2006-01-02T15:04:05-0700", "2006-01-02 15:04:05 -0700", "Mon Jan 2 15:04:05 2006 -0700", time.RFC1123} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read date %q", s)
}
