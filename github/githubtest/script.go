package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// ScriptToken is the token scripts run with; the fake accepts it and nothing else.
const ScriptToken = "ghs_scriptTokenThatMustNeverBePrinted"

var (
	scriptMu      sync.Mutex
	scriptServers = map[*testscript.TestScript]*Server{}
)

// ScriptCmds returns the testscript command github-fake, which runs a fake GitHub for one
// script:
//
//	github-fake start [login]            start it for octo/hello (no login: the Actions bot) and set
//	                                     GITHUB_API_URL, GITHUB_TOKEN and GITHUB_REPOSITORY (and
//	                                     GITHUB_FAKE_HOST, its host:port)
//	github-fake app SLUG                 make the token SLUG's installation token (it posts as SLUG[bot])
//	github-fake pr N SHA [author=LOGIN] [fork=OWNER/REPO] [branch=NAME] [state=closed]
//	                                     add pull request N with head SHA (or move its head), opened
//	                                     by LOGIN (default octocat), from a fork, from the branch
//	                                     NAME (default new-topic), closed
//	github-fake perm LOGIN PERM          set LOGIN's permission (admin, maintain, write, read, …)
//	github-fake team ORG/SLUG LOGIN[=STATE]...
//	                                     add the team with members (STATE active, the default, or
//	                                     pending)
//	github-fake token-perms PERMS        limit the token to PERMS (contents=read,issues=write,…)
//	github-fake comment N LOGIN BODY     add a comment now (-old: an hour ago); {ref} in BODY is
//	                                     the ref of the latest approval request on N (the start
//	                                     of its request id: /approve {ref} answers a tool call)
//	github-fake review N LOGIN STATE [BODY]
//	github-fake edit N WHO [by=LOGIN] BODY
//	github-fake edit N WHO [by=LOGIN] -replace OLD NEW
//	                                     edit the latest comment on N of WHO (a login, or
//	                                     "request": the latest approval request) as LOGIN (default:
//	                                     the token's own account, as the agent holding the token
//	                                     would): BODY replaces its text, or NEW replaces OLD in it
//	github-fake on-request comment N LOGIN BODY
//	github-fake on-request review N LOGIN STATE [BODY]
//	                                     answer the next approval request comment that way
//	github-fake fail METHOD SUFFIX COUNT STATUS [Header=Value]... [message=TEXT]
//	                                     the next COUNT matching requests fail with STATUS; TEXT is
//	                                     the error message ({authorization}: the request's
//	                                     Authorization header, echoed)
//	github-fake fail METHOD SUFFIX COUNT denied
//	                                     GitHub's 403 for a token without the permission
//	github-fake fail METHOD SUFFIX COUNT hang
//	                                     never answer (until the client gives up)
//	github-fake paging normal|repeat-next|endless
//	                                     page lists as GitHub does, with a rel="next" link that
//	                                     repeats, or with one that never ends
//	github-fake git                      give the repository real git data (ServeGit, under
//	                                     $WORK/github-git) and set GITHUB_SERVER_URL,
//	                                     GITHUB_FAKE_GIT_URL (its smart HTTP URL),
//	                                     GITHUB_FAKE_BARE (the bare repository) and
//	                                     GITHUB_FAKE_GIT_AUTH (an http.extraHeader for git)
//	github-fake comments N | reviews N   print them, one per line: login: body (escaped)
//	github-fake requests                 print METHOD PATH?QUERY STATUS per request
func ScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){"github-fake": fakeCmd}
}

func server(ts *testscript.TestScript) *Server {
	scriptMu.Lock()
	defer scriptMu.Unlock()
	s := scriptServers[ts]
	if s == nil {
		ts.Fatalf("github-fake start first")
	}
	return s
}

func atoi(ts *testscript.TestScript, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		ts.Fatalf("github-fake: %q is not a number", s)
	}
	return n
}

func fakeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! github-fake")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: github-fake start|app|pr|perm|team|token-perms|git|comment|review|edit|on-request|fail|paging|comments|reviews|requests ...")
	}
	need := func(n int) {
		if len(args) < n {
			ts.Fatalf("github-fake %s: want at least %d arguments", args[0], n-1)
		}
	}
	switch args[0] {
	case "start":
		login := ""
		if len(args) > 1 {
			login = args[1]
		}
		s := New("octo", "hello", ScriptToken, login)
		scriptMu.Lock()
		scriptServers[ts] = s
		scriptMu.Unlock()
		ts.Defer(func() {
			s.Close()
			scriptMu.Lock()
			delete(scriptServers, ts)
			scriptMu.Unlock()
		})
		ts.Setenv("GITHUB_API_URL", s.URL)
		ts.Setenv("GITHUB_FAKE_HOST", strings.TrimPrefix(s.URL, "http://"))
		ts.Setenv("GITHUB_TOKEN", ScriptToken)
		ts.Setenv("GITHUB_REPOSITORY", "octo/hello")
	case "app":
		need(2)
		server(ts).SetAppBot(args[1] + "[bot]")
	case "pr":
		need(3)
		s, n := server(ts), atoi(ts, args[1])
		s.AddPR(n, args[2])
		for _, kv := range args[3:] {
			switch k, v, _ := strings.Cut(kv, "="); k {
			case "author":
				s.SetPRAuthor(n, v)
			case "fork":
				s.SetPRFork(n, v)
			case "branch":
				s.SetPRBranch(n, v)
			case "state":
				s.SetPRState(n, v)
			default:
				ts.Fatalf("github-fake pr: unknown %q (want author=LOGIN, fork=OWNER/REPO, branch=NAME or state=STATE)", kv)
			}
		}
	case "perm":
		need(3)
		server(ts).SetPermission(args[1], args[2])
	case "team":
		need(2)
		org, slug, ok := strings.Cut(args[1], "/")
		if !ok {
			ts.Fatalf("github-fake team: want ORG/SLUG, got %q", args[1])
		}
		s := server(ts)
		s.AddTeam(org, slug)
		for _, m := range args[2:] {
			login, state, ok := strings.Cut(m, "=")
			if !ok {
				state = "active"
			}
			s.SetTeamMembership(org, slug, login, state)
		}
	case "token-perms":
		need(2)
		server(ts).SetTokenPermissions(args[1])
	case "comment":
		need(4)
		at := time.Time{}
		rest := args[1:]
		if rest[0] == "-old" {
			at, rest = time.Now().Add(-time.Hour), rest[1:]
		}
		s, pr, body := server(ts), atoi(ts, rest[0]), strings.Join(rest[2:], " ")
		if strings.Contains(body, "{ref}") {
			ref := s.RequestRef(pr)
			if ref == "" {
				ts.Fatalf("github-fake comment: no approval request on #%d for {ref}", pr)
			}
			body = strings.ReplaceAll(body, "{ref}", ref)
		}
		s.AddComment(pr, rest[1], body, at)
	case "review":
		need(4)
		server(ts).AddReview(atoi(ts, args[1]), args[2], args[3], strings.Join(args[4:], " "), "", time.Time{})
	case "edit":
		need(4)
		editCmd(ts, server(ts), atoi(ts, args[1]), args[2], args[3:])
	case "on-request":
		need(5)
		kind, pr, login, rest := args[1], atoi(ts, args[2]), args[3], args[4:]
		once := sync.Once{}
		server(ts).OnComment(func(s *Server, c Comment) {
			if !strings.Contains(c.Body, "agent-hooks:approval") {
				return
			}
			once.Do(func() {
				if kind == "review" {
					s.AddReview(pr, login, rest[0], strings.Join(rest[1:], " "), "", time.Time{})
				} else {
					s.AddComment(pr, login, strings.Join(rest, " "), time.Time{})
				}
			})
		})
	case "fail":
		need(5)
		f := Fault{Method: args[1], PathSuffix: args[2], Count: atoi(ts, args[3]), Header: map[string]string{}}
		switch args[4] {
		case "denied":
			f.Denied = true
			server(ts).Fail(f)
			return
		case "hang":
			f.Hang = true
			server(ts).Fail(f)
			return
		}
		f.Status = atoi(ts, args[4])
		msg := fmt.Sprintf("injected %d", f.Status)
		for _, kv := range args[5:] {
			k, v, _ := strings.Cut(kv, "=")
			if k == "message" {
				msg = v
				continue
			}
			f.Header[k] = v
		}
		body, _ := json.Marshal(map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
		f.Body = string(body)
		server(ts).Fail(f)
	case "paging":
		need(2)
		modes := map[string]Paging{"normal": PagingNormal, "repeat-next": PagingRepeatNext, "endless": PagingEndless}
		p, ok := modes[args[1]]
		if !ok {
			ts.Fatalf("github-fake paging: want normal, repeat-next or endless")
		}
		server(ts).SetPaging(p)
	case "git":
		s := server(ts)
		bare, err := s.ServeGit(ts.MkAbs("github-git"))
		if err != nil {
			ts.Fatalf("github-fake git: %v", err)
		}
		ts.Setenv("GITHUB_SERVER_URL", s.URL)
		ts.Setenv("GITHUB_FAKE_GIT_URL", s.GitURL())
		ts.Setenv("GITHUB_FAKE_BARE", bare)
		ts.Setenv("GITHUB_FAKE_GIT_AUTH", "Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte("x-access-token:"+ScriptToken)))
	case "comments":
		need(2)
		for _, c := range server(ts).Comments(atoi(ts, args[1])) {
			fmt.Fprintf(ts.Stdout(), "%s: %s\n", c.Login, strconv.Quote(c.Body))
		}
	case "reviews":
		need(2)
		for _, r := range server(ts).Reviews(atoi(ts, args[1])) {
			fmt.Fprintf(ts.Stdout(), "%s %s: %s\n", r.Login, r.State, strconv.Quote(r.Body))
		}
	case "requests":
		for _, r := range server(ts).Requests() {
			fmt.Fprintf(ts.Stdout(), "%s %s?%s %d\n", r.Method, r.Path, r.Query, r.Status)
		}
	default:
		ts.Fatalf("github-fake: unknown subcommand %q", args[0])
	}
}

// editCmd is github-fake edit: see ScriptCmds.
func editCmd(ts *testscript.TestScript, s *Server, pr int, who string, rest []string) {
	editor := s.Identity()
	if by, ok := strings.CutPrefix(rest[0], "by="); ok {
		editor, rest = by, rest[1:]
	}
	var target *Comment
	if who == "request" {
		target = s.LatestRequest(pr)
	} else {
		for _, c := range s.Comments(pr) {
			if strings.EqualFold(c.Login, who) {
				target = &c
			}
		}
	}
	if target == nil {
		ts.Fatalf("github-fake edit: no comment of %s on #%d", who, pr)
	}
	body := strings.Join(rest, " ")
	if len(rest) > 0 && rest[0] == "-replace" {
		if len(rest) != 3 {
			ts.Fatalf("usage: github-fake edit N WHO [by=LOGIN] -replace OLD NEW")
		}
		if !strings.Contains(target.Body, rest[1]) {
			ts.Fatalf("github-fake edit: %q is not in the comment:\n%s", rest[1], target.Body)
		}
		body = strings.Replace(target.Body, rest[1], rest[2], 1)
	}
	if _, err := s.EditComment(target.ID, editor, body); err != nil {
		ts.Fatalf("github-fake edit: %v", err)
	}
}
