package githubtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// gitRepo is the repository's git data: a bare repository the Git Data API reads and writes
// with the real git CLI, and that the server also serves over smart HTTP.
type gitRepo struct {
	dir     string // the bare repository
	env     []string
	backend *cgi.Handler
}

// ServeGit gives the server a real git repository, created empty (bare) under dir: the Git Data
// API (blobs, trees, commits, refs) works on it, and it is served over smart HTTP at GitURL with
// GitHub's authentication (the token as the password of basic auth; pushing needs contents:
// write). It returns the bare repository's path, for the git CLI.
func (s *Server) ServeGit(dir string) (string, error) {
	bare := filepath.Join(dir, s.Owner, s.Repo+".git")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "LANG=C"}
	g := &gitRepo{dir: bare, env: env}
	if _, err := g.run(nil, "init", "-q", "--bare", bare); err != nil {
		return "", err
	}
	if _, err := g.run(nil, "config", "http.receivepack", "true"); err != nil {
		return "", err
	}
	execPath, err := g.run(nil, "--exec-path")
	if err != nil {
		return "", err
	}
	g.backend = &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(execPath), "git-http-backend"),
		Env:  append([]string{"GIT_PROJECT_ROOT=" + dir, "GIT_HTTP_EXPORT_ALL=1"}, env...),
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.git = g
	return bare, nil
}

// GitURL is the https-like URL of the repository served by ServeGit.
func (s *Server) GitURL() string { return s.URL + "/" + s.Owner + "/" + s.Repo + ".git" }

// run runs git in the bare repository (before it exists: wherever) with stdin.
func (g *gitRepo) run(stdin []byte, args ...string) (string, error) {
	return g.runEnv(nil, stdin, args...)
}

func (g *gitRepo) runEnv(extra []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	if _, err := os.Stat(g.dir); err == nil {
		cmd.Dir = g.dir
	}
	cmd.Env = append(append([]string{}, g.env...), extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// objectType is the type of object sha ("" when the repository does not have it).
func (g *gitRepo) objectType(sha string) string {
	if !reSHA.MatchString(sha) {
		return ""
	}
	t, err := g.run(nil, "cat-file", "-t", sha)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(t)
}

var reSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// serveGit serves the smart HTTP protocol for GitURL; false for any other request.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) bool {
	prefix := "/" + s.Owner + "/" + s.Repo + ".git/"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		return false
	}
	s.mu.Lock()
	g := s.git
	_, pass, ok := r.BasicAuth()
	push := r.URL.Query().Get("service") == "git-receive-pack" || strings.HasSuffix(r.URL.Path, "/git-receive-pack")
	status := 0
	switch {
	case g == nil:
		status = http.StatusNotFound
	case !ok || pass != s.token:
		status = http.StatusUnauthorized
	case push && !s.granted("contents", "write"):
		status = http.StatusForbidden
	}
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status})
	s.mu.Unlock()
	switch status {
	case 0:
		g.backend.ServeHTTP(w, r)
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Invalid username or token. Password authentication is not supported for Git operations.", status)
	default:
		http.Error(w, http.StatusText(status), status)
	}
	return true
}

// gitData answers the Git Data API; m is what re matched (owner, repo, and a sha or ref).
func (s *Server) gitData(r *http.Request, re *regexp.Regexp, m []string) reply {
	g := s.git
	if g == nil {
		// GitHub's answer for a repository without commits.
		return apiError(http.StatusConflict, "Git Repository is empty.", "https://docs.github.com/rest/git")
	}
	var in map[string]json.RawMessage
	if r.Method != http.MethodGet {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			return apiError(http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/rest/git")
		}
	}
	switch {
	case re == reBlobs && r.Method == http.MethodPost:
		return s.createBlob(g, in)
	case re == reTrees && r.Method == http.MethodPost:
		return s.createTree(g, in)
	case re == reCommits && r.Method == http.MethodPost:
		return s.createCommit(g, in)
	case re == reCommit && r.Method == http.MethodGet:
		return s.getCommit(g, strings.ToLower(m[3]), http.StatusOK)
	case re == reGetRef && r.Method == http.MethodGet:
		return s.getRef(g, "refs/"+m[3])
	case re == reRefs && r.Method == http.MethodPost:
		return s.createRef(g, in)
	case re == reRef && r.Method == http.MethodPatch:
		return s.updateRef(g, "refs/"+m[3], in)
	}
	return notFound()
}

func invalid(doc, msg string) reply {
	return apiError(http.StatusUnprocessableEntity, msg, "https://docs.github.com/rest/git/"+doc)
}

func str(in map[string]json.RawMessage, key string) (string, bool) {
	var v string
	raw, ok := in[key]
	if !ok || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// createBlob answers POST /repos/{owner}/{repo}/git/blobs.
func (s *Server) createBlob(g *gitRepo, in map[string]json.RawMessage) reply {
	content, ok := str(in, "content")
	if !ok {
		return invalid("blobs#create-a-blob", "Invalid request.\n\n\"content\" wasn't supplied.")
	}
	data := []byte(content)
	switch enc, _ := str(in, "encoding"); enc {
	case "", "utf-8":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(content)
		if err != nil {
			return invalid("blobs#create-a-blob", "Invalid request.\n\nContent is not valid Base64.")
		}
		data = b
	default:
		return invalid("blobs#create-a-blob", "Invalid request.\n\nencoding must be utf-8 or base64.")
	}
	sha, err := g.run(data, "hash-object", "-w", "--stdin")
	if err != nil {
		return apiError(http.StatusInternalServerError, err.Error(), "https://docs.github.com/rest/git/blobs#create-a-blob")
	}
	sha = strings.TrimSpace(sha)
	body := example("git.create-blob")
	body["sha"], body["url"] = sha, s.apiURL("git/blobs/"+sha)
	return reply{status: http.StatusCreated, body: body}
}

func (s *Server) apiURL(rest string) string {
	return fmt.Sprintf("%s/repos/%s/%s/%s", s.URL, s.Owner, s.Repo, rest)
}

// treeEntry is one entry of a create-a-tree request; a sha of null deletes the path.
type treeEntry struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content"`
	deleted bool
}

func (e *treeEntry) UnmarshalJSON(b []byte) error {
	type plain treeEntry
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	e.deleted = string(keys["sha"]) == "null"
	return nil
}

// createTree answers POST /repos/{owner}/{repo}/git/trees: the base tree read into a
// throw-away index, each entry applied to it, and the index written as trees.
func (s *Server) createTree(g *gitRepo, in map[string]json.RawMessage) reply {
	const doc = "trees#create-a-tree"
	var entries []treeEntry
	if raw, ok := in["tree"]; !ok || json.Unmarshal(raw, &entries) != nil {
		return invalid(doc, "Invalid request.\n\n\"tree\" wasn't supplied.")
	}
	tmp, err := os.CreateTemp("", "githubtest-index-")
	if err != nil {
		return apiError(http.StatusInternalServerError, err.Error(), "")
	}
	tmp.Close()
	os.Remove(tmp.Name())
	defer os.Remove(tmp.Name())
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	git := func(stdin []byte, args ...string) (string, error) { return g.runEnv(env, stdin, args...) }
	if base, ok := str(in, "base_tree"); ok {
		if g.objectType(base) != "tree" && g.objectType(base) != "commit" {
			return invalid(doc, "Invalid tree info: base_tree "+base+" is not a tree")
		}
		if _, err := git(nil, "read-tree", base); err != nil {
			return invalid(doc, err.Error())
		}
	}
	for _, e := range entries {
		path := strings.Trim(e.Path, "/")
		if path == "" || !slices.Contains([]string{"100644", "100755", "040000", "160000", "120000"}, e.Mode) ||
			!slices.Contains([]string{"blob", "tree", "commit"}, e.Type) {
			return invalid(doc, fmt.Sprintf("Invalid tree info: entry %q has mode %q and type %q", e.Path, e.Mode, e.Type))
		}
		var sha string
		switch {
		case (e.SHA != nil || e.deleted) && e.Content != nil:
			return invalid(doc, "Invalid tree info: use either tree.sha or content, not both")
		case e.Content != nil:
			out, err := git([]byte(*e.Content), "hash-object", "-w", "--stdin")
			if err != nil {
				return invalid(doc, err.Error())
			}
			sha = strings.TrimSpace(out)
		case e.SHA != nil:
			sha = *e.SHA
		case !e.deleted:
			return invalid(doc, "Invalid tree info: entry "+e.Path+" has neither sha nor content")
		}
		if e.deleted {
			if out, _ := git(nil, "ls-files", "--cached", "--", path); strings.TrimSpace(out) == "" {
				// "Returns an error if you try to delete a file that does not exist."
				return invalid(doc, "GitRPC::BadObjectState: "+path+" does not exist in the tree")
			}
			if _, err := git(nil, "rm", "--cached", "-r", "-q", "--", path); err != nil {
				return invalid(doc, err.Error())
			}
			continue
		}
		if e.Type != "commit" && g.objectType(sha) != e.Type {
			return invalid(doc, fmt.Sprintf("Invalid tree info: tree.sha %s is not a valid %s", sha, e.Type))
		}
		if e.Type == "tree" {
			if _, err := git(nil, "rm", "--cached", "-r", "-q", "--ignore-unmatch", "--", path); err != nil {
				return invalid(doc, err.Error())
			}
			if _, err := git(nil, "read-tree", "--prefix="+path+"/", sha); err != nil {
				return invalid(doc, err.Error())
			}
			continue
		}
		if _, err := git(nil, "update-index", "--add", "--replace", "--cacheinfo", e.Mode+","+sha+","+path); err != nil {
			return invalid(doc, err.Error())
		}
	}
	out, err := git(nil, "write-tree")
	if err != nil {
		return invalid(doc, err.Error())
	}
	sha := strings.TrimSpace(out)
	body := example("git.create-tree")
	body["sha"], body["url"], body["truncated"] = sha, s.apiURL("git/trees/"+sha), false
	list, _ := g.run(nil, "ls-tree", "-l", sha)
	var tree []any
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		meta, name, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		e := map[string]any{"path": name, "mode": f[0], "type": f[1], "sha": f[2], "url": s.apiURL("git/" + f[1] + "s/" + f[2])}
		if n, err := strconv.Atoi(f[3]); err == nil {
			e["size"] = n
		}
		tree = append(tree, e)
	}
	body["tree"] = tree
	return reply{status: http.StatusCreated, body: body}
}

// person is the author or committer of a create-a-commit request.
type person struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (p person) line(now time.Time) (string, error) {
	t := now
	if p.Date != "" {
		d, err := time.Parse(time.RFC3339, p.Date)
		if err != nil {
			return "", fmt.Errorf("date %q is not an ISO 8601 timestamp", p.Date)
		}
		t = d
	}
	return fmt.Sprintf("%s <%s> %d %s", p.Name, p.Email, t.Unix(), t.Format("-0700")), nil
}

// signature is the fake's stand-in for GitHub's web-flow signature of the commit payload: an
// armored block that git stores like any other (git does not check signatures when it hashes,
// fetches or fscks).
func signature(payload string) string {
	sum := sha256.Sum256([]byte(payload))
	b := base64.StdEncoding.EncodeToString(sum[:])
	return "-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJ" + b[:40] + "\n" + b[40:] + "\n=FAKE\n-----END PGP SIGNATURE-----\n"
}

// createCommit answers POST /repos/{owner}/{repo}/git/commits. Without author, committer and
// signature, the commit is the token's account's, and an installation token's (GITHUB_TOKEN, a
// GitHub App's) is signed by GitHub, which then shows it as Verified; any of them makes an
// unsigned commit (a signature is kept but not verified).
func (s *Server) createCommit(g *gitRepo, in map[string]json.RawMessage) reply {
	const doc = "commits#create-a-commit"
	msg, ok := str(in, "message")
	if !ok {
		return invalid(doc, "Invalid request.\n\n\"message\" wasn't supplied.")
	}
	tree, ok := str(in, "tree")
	if !ok {
		return invalid(doc, "Invalid request.\n\n\"tree\" wasn't supplied.")
	}
	if g.objectType(tree) != "tree" {
		return invalid(doc, "Tree SHA does not exist")
	}
	var parents []string
	if raw, ok := in["parents"]; ok && json.Unmarshal(raw, &parents) != nil {
		return invalid(doc, "Invalid request.\n\nparents must be a list of SHAs.")
	}
	for _, p := range parents {
		if g.objectType(p) != "commit" {
			return invalid(doc, "Parent SHA does not exist or is not a commit object")
		}
	}
	var author, committer *person
	for key, dst := range map[string]**person{"author": &author, "committer": &committer} {
		if raw, ok := in[key]; ok && string(raw) != "null" {
			var p person
			if json.Unmarshal(raw, &p) != nil || p.Name == "" || p.Email == "" {
				return invalid(doc, "Invalid request.\n\n"+key+" needs a name and an email.")
			}
			*dst = &p
		}
	}
	sig, hasSig := str(in, "signature")
	login := s.Identity()
	me := &person{Name: login, Email: fmt.Sprintf("%d+%s@users.noreply.github.com", s.userID(login), login)}
	sign := author == nil && committer == nil && !hasSig && s.user == ""
	switch {
	case author == nil && committer == nil:
		author, committer = me, me
	case author == nil:
		author = committer
	case committer == nil:
		committer = author
	}
	now := s.now().UTC().Truncate(time.Second)
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	for _, p := range []struct {
		name string
		who  *person
	}{{"author", author}, {"committer", committer}} {
		line, err := p.who.line(now)
		if err != nil {
			return invalid(doc, "Invalid request.\n\n"+p.name+" "+err.Error())
		}
		fmt.Fprintf(&b, "%s %s\n", p.name, line)
	}
	payload := b.String() + "\n" + msg
	if sign {
		sig, hasSig = signature(payload), true
	}
	object := payload
	if hasSig {
		object = b.String() + "gpgsig " + strings.ReplaceAll(strings.TrimSuffix(sig, "\n"), "\n", "\n ") + "\n\n" + msg
	}
	out, err := g.run([]byte(object), "hash-object", "-t", "commit", "-w", "--stdin")
	if err != nil {
		return invalid(doc, err.Error())
	}
	return s.getCommit(g, strings.TrimSpace(out), http.StatusCreated)
}

// getCommit answers GET /repos/{owner}/{repo}/git/commits/{commit_sha} (and the creation of
// one, with status 201): the commit object as GitHub describes it, with its verification.
func (s *Server) getCommit(g *gitRepo, sha string, status int) reply {
	if g.objectType(sha) != "commit" {
		return apiError(http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/commits#get-a-commit-object")
	}
	raw, err := g.run(nil, "cat-file", "commit", sha)
	if err != nil {
		return apiError(http.StatusInternalServerError, err.Error(), "")
	}
	header, msg, _ := strings.Cut(raw, "\n\n")
	body := example("git.get-commit")
	body["sha"], body["message"] = sha, msg
	body["node_id"] = "C_" + sha
	body["url"] = s.apiURL("git/commits/" + sha)
	body["html_url"] = fmt.Sprintf("https://github.com/%s/%s/commit/%s", s.Owner, s.Repo, sha)
	var parents []any
	var payload strings.Builder
	sig := ""
	lines := strings.Split(header, "\n")
	for i := 0; i < len(lines); i++ {
		key, val, _ := strings.Cut(lines[i], " ")
		if key == "gpgsig" {
			sig = val + "\n"
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") {
				i++
				sig += lines[i][1:] + "\n"
			}
			continue
		}
		payload.WriteString(lines[i] + "\n")
		switch key {
		case "tree":
			body["tree"] = map[string]any{"sha": val, "url": s.apiURL("git/trees/" + val)}
		case "parent":
			parents = append(parents, map[string]any{"sha": val, "url": s.apiURL("git/commits/" + val),
				"html_url": fmt.Sprintf("https://github.com/%s/%s/commit/%s", s.Owner, s.Repo, val)})
		case "author", "committer":
			body[key] = personJSON(val)
		}
	}
	body["parents"] = append([]any{}, parents...)
	v := map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	if sig != "" {
		text := payload.String() + "\n" + msg
		v["signature"], v["payload"], v["reason"] = sig, text, "unknown_key"
		if sig == signature(text) {
			v["verified"], v["reason"], v["verified_at"] = true, "valid", s.now().UTC().Format(time.RFC3339)
		}
	}
	body["verification"] = v
	return reply{status: status, body: body}
}

var rePerson = regexp.MustCompile(`^(.*) <(.*)> (\d+) ([+-]\d{4})$`)

// personJSON is an author or committer line as GitHub shows it: the date in UTC.
func personJSON(line string) map[string]any {
	m := rePerson.FindStringSubmatch(line)
	if m == nil {
		return map[string]any{"name": line}
	}
	secs, _ := strconv.ParseInt(m[3], 10, 64)
	return map[string]any{"name": m[1], "email": m[2], "date": time.Unix(secs, 0).UTC().Format(time.RFC3339)}
}

// refJSON is ref as GitHub describes it, or 404.
func (s *Server) refJSON(g *gitRepo, ref string, status int) reply {
	out, err := g.run(nil, "rev-parse", "-q", "--verify", ref)
	if err != nil {
		return apiError(http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/refs#get-a-reference")
	}
	sha := strings.TrimSpace(out)
	body := example("git.get-ref")
	body["ref"], body["url"], body["node_id"] = ref, s.apiURL("git/"+ref), "REF_"+ref
	body["object"] = map[string]any{"type": "commit", "sha": sha, "url": s.apiURL("git/commits/" + sha)}
	return reply{status: status, body: body}
}

// getRef answers GET /repos/{owner}/{repo}/git/ref/{ref}.
func (s *Server) getRef(g *gitRepo, ref string) reply { return s.refJSON(g, ref, http.StatusOK) }

// createRef answers POST /repos/{owner}/{repo}/git/refs.
func (s *Server) createRef(g *gitRepo, in map[string]json.RawMessage) reply {
	const doc = "refs#create-a-reference"
	ref, _ := str(in, "ref")
	sha, _ := str(in, "sha")
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 {
		return invalid(doc, "Reference name must start with 'refs/' and have at least two slashes.")
	}
	if g.objectType(sha) == "" {
		return invalid(doc, "Object does not exist")
	}
	if _, err := g.run(nil, "rev-parse", "-q", "--verify", ref); err == nil {
		return invalid(doc, "Reference already exists")
	}
	if _, err := g.run(nil, "update-ref", ref, sha, strings.Repeat("0", 40)); err != nil {
		return invalid(doc, "Reference already exists")
	}
	return s.refJSON(g, ref, http.StatusCreated)
}

// updateRef answers PATCH /repos/{owner}/{repo}/git/refs/{ref}: without force, only a
// fast-forward, and the ref must still be where it was when the new commit was checked
// (git update-ref's old value).
func (s *Server) updateRef(g *gitRepo, ref string, in map[string]json.RawMessage) reply {
	const doc = "refs#update-a-reference"
	sha, ok := str(in, "sha")
	if !ok {
		return invalid(doc, "Invalid request.\n\n\"sha\" wasn't supplied.")
	}
	var force bool
	if raw, ok := in["force"]; ok && json.Unmarshal(raw, &force) != nil {
		return invalid(doc, "Invalid request.\n\nforce must be a boolean.")
	}
	out, err := g.run(nil, "rev-parse", "-q", "--verify", ref)
	if err != nil {
		return invalid(doc, "Reference does not exist")
	}
	old := strings.TrimSpace(out)
	if g.objectType(sha) == "" {
		return invalid(doc, "Object does not exist")
	}
	if !force {
		if _, err := g.run(nil, "merge-base", "--is-ancestor", old, sha); err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) && exit.ExitCode() == 1 {
				return invalid(doc, "Update is not a fast forward")
			}
			return invalid(doc, err.Error())
		}
	}
	if _, err := g.run(nil, "update-ref", ref, sha, old); err != nil {
		return invalid(doc, "Update is not a fast forward")
	}
	return s.refJSON(g, ref, http.StatusOK)
}
