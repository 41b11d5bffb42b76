package github

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"
	"github.com/sourcegraph/conc/pool"

	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/internal/redact"
)

// CommitViaAPI is git-commit's "via": "github-api" for a run's environment: the commit is made
// with GitHub's Git Data API — the changed files as blobs, the tree on the parent's tree, the
// commit, then the branch moved to it only as a fast-forward — so GitHub signs it (an
// installation token's commit without a custom author or committer) and shows it as Verified.
// gitops then makes the local branch that very commit.
func CommitViaAPI(o Options) func(getenv func(string) string) gitops.Creator {
	return func(getenv func(string) string) gitops.Creator { return &apiCommitter{opts: o, getenv: getenv} }
}

// apiCommitter is one git-commit's use of the Git Data API.
type apiCommitter struct {
	opts   Options
	getenv func(string) string

	c           *Client
	owner, repo string
	exists      bool // the branch exists on GitHub (else it is created)
}

// blobUploads is how many blobs are uploaded at a time.
const blobUploads = 4

// Prepare checks that the remote is a repository on GitHub, as the run's GitHub knows it, and
// that its branch is where the local branch is (or does not exist yet).
func (a *apiCommitter) Prepare(ctx context.Context, t gitops.RemoteTarget) error {
	host, owner, repo, ok := remoteRepo(t.RemoteURL)
	if !ok {
		return fmt.Errorf("the remote %s (%s) is not a repository URL (owner/repo on a host)", t.Remote, redact.URL(t.RemoteURL))
	}
	apiURL, err := githubAPIFor(a.getenv, host)
	if err != nil {
		return fmt.Errorf("the remote %s (%s) %w", t.Remote, redact.URL(t.RemoteURL), err)
	}
	token, secrets := envToken(a.getenv)
	c, err := NewClient(token, apiURL, a.opts)
	if err != nil {
		return redact.Error(err, secrets)
	}
	c.secrets = append(c.secrets, secrets...)
	a.c, a.owner, a.repo = c, owner, repo
	return a.checkBranch(ctx, t)
}

// checkBranch makes sure GitHub's branch is at the local branch's commit, which the new commit
// builds on, or does not exist.
func (a *apiCommitter) checkBranch(ctx context.Context, t gitops.RemoteTarget) error {
	var ref *gh.Reference
	err := a.c.call(ctx, fmt.Sprintf("get the branch %s of %s/%s", t.Branch, a.owner, a.repo), func() (r *gh.Response, err error) {
		ref, r, err = a.c.gh.Git.GetRef(ctx, a.owner, a.repo, "heads/"+t.Branch)
		return r, err
	})
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound:
		a.exists = false
		return nil
	case err != nil:
		return err
	case !strings.EqualFold(ref.GetObject().GetSHA(), t.Parent):
		return fmt.Errorf("%s on GitHub is at %s, the local branch at %s: the commit would not follow it; pull (or push) first",
			t.Branch, short(ref.GetObject().GetSHA()), short(t.Parent))
	}
	a.exists = true
	return nil
}

// Create makes the staged commit on GitHub and moves the branch to it.
func (a *apiCommitter) Create(ctx context.Context, s *gitops.StagedCommit) (*gitops.CreatedCommit, error) {
	repo := a.owner + "/" + a.repo
	if err := a.checkBranch(ctx, s.RemoteTarget); err != nil {
		return nil, fmt.Errorf("%w; nothing was committed", err)
	}
	if err := a.uploadBlobs(ctx, s); err != nil {
		return nil, fmt.Errorf("%w; nothing was committed", err)
	}
	tree := s.BaseTree
	if len(s.Changes) > 0 {
		var entries []*gh.TreeEntry
		for _, ch := range s.Changes {
			e := &gh.TreeEntry{Path: gh.String(ch.Path), Mode: gh.String(ch.Mode), Type: gh.String(entryType(ch.Mode))}
			if !ch.Deleted {
				e.SHA = gh.String(ch.ID) // a nil SHA, and no content, deletes the path
			}
			entries = append(entries, e)
		}
		var t *gh.Tree
		err := a.c.call(ctx, "create the tree on "+repo, func() (r *gh.Response, err error) {
			t, r, err = a.c.gh.Git.CreateTree(ctx, a.owner, a.repo, s.BaseTree, entries)
			return r, err
		})
		if err != nil {
			return nil, fmt.Errorf("%w; nothing was committed", err)
		}
		tree = t.GetSHA()
	}
	if tree != s.Tree {
		return nil, fmt.Errorf("GitHub built the tree %s, not the staged tree %s; nothing was committed", tree, s.Tree)
	}
	in := &gh.Commit{Message: gh.String(s.Message), Tree: &gh.Tree{SHA: gh.String(s.Tree)}}
	for _, p := range s.Parents {
		in.Parents = append(in.Parents, &gh.Commit{SHA: gh.String(p)})
	}
	in.Author, in.Committer = commitAuthor(s.Author), commitAuthor(s.Committer)
	var made *gh.Commit
	err := a.c.call(ctx, "create the commit on "+repo, func() (r *gh.Response, err error) {
		made, r, err = a.c.gh.Git.CreateCommit(ctx, a.owner, a.repo, in, nil)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was committed", err)
	}
	if err := a.moveBranch(ctx, s, made.GetSHA()); err != nil {
		return nil, err
	}
	v := made.GetVerification()
	return &gitops.CreatedCommit{
		ID: made.GetSHA(), SignedPayload: v.GetPayload(), Signature: v.GetSignature(),
		Verified: v.GetVerified(), Reason: v.GetReason(), URL: made.GetHTMLURL(),
	}, nil
}

// uploadBlobs creates the blobs of the changed files on GitHub, a few at a time, and checks
// GitHub stored each as the same object.
func (a *apiCommitter) uploadBlobs(ctx context.Context, s *gitops.StagedCommit) error {
	seen := map[string]bool{}
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(blobUploads)
	for _, ch := range s.Changes {
		if ch.Deleted || entryType(ch.Mode) != "blob" || seen[ch.ID] {
			continue
		}
		seen[ch.ID] = true
		id, path := ch.ID, ch.Path
		p.Go(func(ctx context.Context) error {
			data, err := s.ReadBlob(id)
			if err != nil {
				return err
			}
			blob := &gh.Blob{Content: gh.String(base64.StdEncoding.EncodeToString(data)), Encoding: gh.String("base64")}
			var made *gh.Blob
			err = a.c.call(ctx, fmt.Sprintf("upload %s to %s/%s", path, a.owner, a.repo), func() (r *gh.Response, err error) {
				made, r, err = a.c.gh.Git.CreateBlob(ctx, a.owner, a.repo, blob)
				return r, err
			})
			if err == nil && made.GetSHA() != id {
				err = fmt.Errorf("upload %s: GitHub stored it as %s, not %s", path, made.GetSHA(), id)
			}
			return err
		})
	}
	return p.Wait()
}

// moveBranch points GitHub's branch at the new commit: an update that must be a fast-forward
// (force false), or the branch's creation.
func (a *apiCommitter) moveBranch(ctx context.Context, s *gitops.StagedCommit, sha string) error {
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + s.Branch), Object: &gh.GitObject{SHA: gh.String(sha)}}
	what := fmt.Sprintf("move %s of %s/%s to the new commit %s", s.Branch, a.owner, a.repo, short(sha))
	err := a.c.call(ctx, what, func() (r *gh.Response, err error) {
		if a.exists {
			_, r, err = a.c.gh.Git.UpdateRef(ctx, a.owner, a.repo, ref, false)
		} else {
			_, r, err = a.c.gh.Git.CreateRef(ctx, a.owner, a.repo, ref)
		}
		return r, err
	})
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusUnprocessableEntity {
		return fmt.Errorf("%w: %s moved on GitHub since it was checked (someone pushed), and the new commit would not follow it; "+
			"the commit %s stays on no branch, nothing was committed locally: pull, then commit again", err, s.Branch, short(sha))
	}
	if err != nil {
		return fmt.Errorf("%w; the commit %s is on no branch, nothing was committed locally", err, short(sha))
	}
	return nil
}

// entryType is the type of a tree entry of mode.
func entryType(mode string) string {
	switch mode {
	case "160000":
		return "commit"
	case "40000", "040000":
		return "tree"
	}
	return "blob"
}

func commitAuthor(s *gitops.Signature) *gh.CommitAuthor {
	if s == nil {
		return nil
	}
	return &gh.CommitAuthor{Name: gh.String(s.Name), Email: gh.String(s.Email), Date: &gh.Timestamp{Time: s.When}}
}

// remoteRepo reads host, owner and repository from a git remote URL.
func remoteRepo(raw string) (host, owner, repo string, ok bool) {
	if owner, repo, ok = ParseRemoteURL(raw); !ok {
		return "", "", "", false
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		return strings.ToLower(u.Hostname()), owner, repo, true
	}
	// scp-like: [user@]host:owner/repo.git
	h, _, _ := strings.Cut(raw, ":")
	if i := strings.LastIndex(h, "@"); i >= 0 {
		h = h[i+1:]
	}
	return strings.ToLower(h), owner, repo, h != ""
}

// githubAPIFor is the REST API of the GitHub at host: GITHUB_API_URL, else the host's own
// (api.github.com, api.SUBDOMAIN.ghe.com, https://HOST/api/v3 for GitHub Enterprise Server).
// The host must be GitHub's — github.com, *.ghe.com, the server of GITHUB_SERVER_URL (Actions,
// also on GitHub Enterprise Server) or GH_HOST — and, in a run, the run's own server.
func githubAPIFor(getenv func(string) string, host string) (string, error) {
	server := ""
	if u, err := url.Parse(getenv("GITHUB_SERVER_URL")); err == nil {
		server = strings.ToLower(u.Hostname())
	}
	if host != "github.com" && !strings.HasSuffix(host, ".ghe.com") && host != server && !strings.EqualFold(host, getenv("GH_HOST")) {
		return "", fmt.Errorf("is not on GitHub (github.com, *.ghe.com, the host of GITHUB_SERVER_URL or GH_HOST): the Git Data API cannot commit to it")
	}
	if server != "" && host != server {
		return "", fmt.Errorf("is on %s, but this run's GitHub is %s (GITHUB_SERVER_URL): its token and API are for that one", host, server)
	}
	if api := getenv("GITHUB_API_URL"); api != "" {
		return api, nil
	}
	switch {
	case host == "github.com":
		return DefaultAPIURL, nil
	case strings.HasSuffix(host, ".ghe.com"):
		return "https://api." + host + "/", nil
	}
	return "https://" + host + "/api/v3/", nil
}
