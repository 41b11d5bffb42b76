package view

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/autoagent/agent-hooks/sessions"
)

// element finds the elements under n that match.
func elements(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// pageRows are the rows of the page's table: the text of each cell.
func pageRows(doc *html.Node) [][]string {
	var rows [][]string
	for _, tr := range elements(doc, func(n *html.Node) bool { return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" }) {
		var cells []string
		for _, td := range elements(tr, func(n *html.Node) bool { return n.Data == "td" }) {
			cells = append(cells, textOf(td))
		}
		rows = append(rows, cells)
	}
	return rows
}

// wantPageRows are the rows the page of hostileTrail shows (but the timeline's cell, empty).
func wantPageRows() [][]string {
	var want [][]string
	for i, h := range hostile {
		decision := "passed"
		if i%2 == 1 {
			decision = "deny"
		}
		want = append(want, []string{clock(at(i*100), false), "Bash", "sh -c " + shellWord(h, false), decision, "0ms", h, ""})
	}
	return append(want, []string{clock(at(995), false), "PreExecutionEnd", "hook gate|x", "block", "5ms", "no `tests`", ""})
}

// checkPage checks a page as parsed (by x/net/html, or as Chromium built it): the session's
// strings are text in their cells, no element or attribute came from them, and the only style
// is the one the Content-Security-Policy admits by its hash.
func checkPage(t *testing.T, doc *html.Node) {
	t.Helper()
	if got, want := pageRows(doc), wantPageRows(); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("rows =\n%q\nwant\n%q", got, want)
	}
	allowed := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"header": true, "h1": true, "h2": true, "code": true, "dl": true, "dt": true, "dd": true, "p": true, "section": true,
		"svg": true, "rect": true, "div": true, "span": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true}
	for _, n := range elements(doc, func(*html.Node) bool { return true }) {
		if !allowed[n.Data] {
			t.Errorf("the page has a <%s> element", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") || a.Key == "href" || a.Key == "src" || a.Key == "style" || a.Key == "srcset" || a.Key == "action" {
				t.Errorf("<%s> has a %s attribute %q", n.Data, a.Key, a.Val)
			}
		}
	}
	styles := elements(doc, func(n *html.Node) bool { return n.Data == "style" })
	metas := elements(doc, func(n *html.Node) bool { return strings.EqualFold(attr(n, "http-equiv"), "Content-Security-Policy") })
	if len(styles) != 1 || len(metas) != 1 {
		t.Fatalf("%d <style> and %d CSP <meta>, want one of each", len(styles), len(metas))
	}
	sum := sha256.Sum256([]byte(textOf(styles[0])))
	csp := attr(metas[0], "content")
	want := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "';"
	if !strings.HasPrefix(csp, want) {
		t.Errorf("CSP = %q, want it to start %q", csp, want)
	}
	bars := elements(doc, func(n *html.Node) bool { return n.Data == "rect" && n.Parent != nil && hasClass(n.Parent, "overview") })
	if len(bars) == 0 || len(elements(doc, func(n *html.Node) bool { return n.Data == "rect" && hasClass(n, "blocked") })) == 0 {
		t.Errorf("the overview has %d bars and none for the blocked calls", len(bars))
	}
}

// TestHTMLShowsTextAsText: every command and reason an agent wrote is text in its cell of the
// page, which has no script, no link, no image, no style but its own.
func TestHTMLShowsTextAsText(t *testing.T) {
	t.Parallel()
	sess, tr := hostileTrail(t)
	var out bytes.Buffer
	if err := HTML(&out, sess, tr, Options{}); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, doc)
}

// TestHTMLTimeline: each row's bar sits where its call began on the session's timeline.
func TestHTMLTimeline(t *testing.T) {
	t.Parallel()
	store := sessions.New(t.TempDir(), sessions.WithClock(func() time.Time { return t0 }))
	sess, err := store.Create(sessions.Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Append(sess.ID,
		answer(2500, "a", "PreToolUse", "", "", bash("ls")), // a quarter into the session
		answer(5000, "b", "PreToolUse", "deny", "no", bash("rm")),
	); err != nil {
		t.Fatal(err)
	}
	sess, err = store.Update(sess.ID, func(s *sessions.Session) error {
		s.Status, s.EndTime = sessions.StatusCompleted, at(10000)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := Trail{Name: "t", Open: func() (io.ReadCloser, error) { return store.OpenTrail(sess.ID) }}
	var out bytes.Buffer
	if err := HTML(&out, sess, tr, Options{Blocked: true}); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	var xs []string
	for _, r := range elements(doc, func(n *html.Node) bool { return n.Data == "rect" && n.Parent != nil && !hasClass(n.Parent, "overview") }) {
		xs = append(xs, attr(r, "class")+"@"+attr(r, "x"))
	}
	if want := []string{"deny@500.0"}; fmt.Sprint(xs) != fmt.Sprint(want) {
		t.Errorf("bars %v, want %v (--blocked: the denied call only, half way)", xs, want)
	}
	if c := elements(doc, func(n *html.Node) bool { return attr(n, "id") == "counts" }); len(c) != 1 || textOf(c[0]) != "2 tool calls, 1 blocked; showing the 1 blocked." {
		t.Errorf("counts = %q", textOf(c[0]))
	}
}

// chromium finds Debian's chromium; without it the test skips, unless
// AGENT_HOOKS_REQUIRE_CHROMIUM=1 (CI), where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("AGENT_HOOKS_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is not installed (AGENT_HOOKS_REQUIRE_CHROMIUM=1): apt-get install chromium")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// loadPage loads url in headless Chromium, which may reach nothing but 127.0.0.1, and
// returns the DOM it built and what it logged of the page's console (where it reports what a
// Content-Security-Policy refused).
func loadPage(t *testing.T, bin, url string) (dom []byte, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return stdout.Bytes(), console
}

// TestHTMLInChromium: the page as a real browser builds it shows the rows, requests nothing
// (the server on 127.0.0.1 that serves it, named in the agent's commands, counts every other
// request), and breaks no rule of its Content-Security-Policy. A control page shows that both
// would be seen.
func TestHTMLInChromium(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow: two page loads in Chromium, seconds each; runs without -short (TestHTMLShowsTextAsText checks the page as parsed)")
	}
	bin := chromium(t)
	var requests atomic.Int32
	pages := map[string]string{}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		page, ok := pages[r.URL.Path]
		mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, page)
			return
		}
		if r.URL.Path != "/favicon.ico" { // the browser's own, for a page served over HTTP
			requests.Add(1)
			t.Logf("request for %s", r.URL)
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	u := srv.URL
	lure := []string{
		`<img src="` + u + `/img">`, `<script src="` + u + `/js"></script>`, `<link rel=stylesheet href="` + u + `/css">`,
		`<style>@import url(` + u + `/import);</style>`, `<iframe src="` + u + `/frame"></iframe>`, `curl ` + u + `/curl`,
	}
	var events []sessions.Event
	for i, h := range hostile {
		decision := ""
		if i%2 == 1 {
			decision = "deny"
		}
		events = append(events, answer(i*100, fmt.Sprintf("t%d", i), "PreToolUse", decision, h, bash("sh", "-c", h)))
	}
	events = append(events, hook(1000, "", "PreExecutionEnd", "gate|x", "blocked", "block", "no `tests`"))
	for i, l := range lure {
		events = append(events, answer(2000+i, fmt.Sprintf("lure%d", i), "PreToolUse", "deny", l, bash("sh", "-c", l)))
	}
	sess, tr := newTrail(t, events...)
	var page bytes.Buffer
	if err := HTML(&page, sess, tr, Options{}); err != nil {
		t.Fatal(err)
	}

	t.Run("page", func(t *testing.T) {
		mu.Lock()
		pages["/page.html"] = page.String()
		mu.Unlock()
		dom, console := loadPage(t, bin, u+"/page.html")
		doc, err := html.Parse(bytes.NewReader(dom))
		if err != nil {
			t.Fatal(err)
		}
		rows := pageRows(doc)
		if len(rows) != len(hostile)+1+len(lure) {
			t.Fatalf("Chromium shows %d rows, want %d:\n%s", len(rows), len(hostile)+1+len(lure), dom)
		}
		for i, l := range lure {
			if got := rows[len(hostile)+1+i][5]; got != l {
				t.Errorf("row of lure %d shows reason %q, want the text %q", i, got, l)
			}
		}
		// The rows checkPage knows, and the elements of the whole page.
		for _, tr := range elements(doc, func(n *html.Node) bool { return n.Data == "tr" && strings.Contains(textOf(n), "lure") }) {
			tr.Parent.RemoveChild(tr)
		}
		for _, tr := range elements(doc, func(n *html.Node) bool {
			return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" && strings.Contains(textOf(n), u)
		}) {
			tr.Parent.RemoveChild(tr)
		}
		checkPage(t, doc)
		for _, line := range console {
			t.Errorf("console: %s", line)
		}
		if n := requests.Load(); n != 0 {
			t.Errorf("the page made %d request(s) to a server named in its commands", n)
		}
	})
	t.Run("control", func(t *testing.T) {
		// The same page with a style the policy does not admit and an image of the server.
		ctl := strings.Replace(page.String(), "<style>", "<style>p { color: red }", 1)
		ctl = strings.Replace(ctl, "</body>", `<img src="`+u+`/control.png"></body>`, 1)
		ctl = regexp.MustCompile(`img-src 'none'; `).ReplaceAllString(ctl, "img-src "+u+"; ")
		mu.Lock()
		pages["/control.html"] = ctl
		mu.Unlock()
		before := requests.Load()
		_, console := loadPage(t, bin, u+"/control.html")
		if !strings.Contains(strings.Join(console, "\n"), "Content Security Policy") {
			t.Errorf("Chromium logged no CSP violation for a style outside the policy: %q", console)
		}
		if requests.Load() == before {
			t.Errorf("Chromium's request for the control image was not seen")
		}
	})
}
