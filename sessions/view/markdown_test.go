package view

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"

	"github.com/autoagent/agent-hooks/sessions"
)

// hostile are commands and reasons an agent could have written, each trying to break out of a
// table cell, a code span or the page.
var hostile = []string{
	"echo a | tee b",
	"printf '`x` ``y``' && echo \\| done",
	"<script>alert(1)</script><img src=x onerror=alert(2)>",
	"[click](https://example.com) ![i](https://example.com/i.png) https://example.com",
	"**bold** _em_ ~~del~~ # not a heading &amp; &lt;",
	"a\\\\|b\\",
	"end with a pipe |",
}

// mdDoc parses Markdown as GitHub does (GFM).
func mdDoc(t *testing.T, src []byte) ast.Node {
	t.Helper()
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
}

// gfmCells are the cells of the table of the Markdown as GitHub shows it (rendered as GFM,
// then read as HTML), row by row, the header first; a cell holding any element (a link, an
// image, emphasis, code, raw HTML) fails the test.
func gfmCells(t *testing.T, src []byte) [][]string {
	t.Helper()
	var page bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(src, &page); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&page)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	tables := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "table":
				tables++
			case "tr":
				var cells []string
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type != html.ElementNode {
						continue
					}
					var b strings.Builder
					for x := c.FirstChild; x != nil; x = x.NextSibling {
						if x.Type != html.TextNode {
							t.Errorf("cell %d of row %d holds a %s node (%q): Markdown made something of the text", len(cells)+1, len(rows)+1, nodeKind(x), x.Data)
							continue
						}
						b.WriteString(x.Data)
					}
					cells = append(cells, b.String())
				}
				rows = append(rows, cells)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if tables != 1 {
		t.Fatalf("%d tables in the Markdown, want 1:\n%s", tables, src)
	}
	return rows
}

func nodeKind(n *html.Node) string {
	switch n.Type {
	case html.ElementNode:
		return "<" + n.Data + "> element"
	case html.CommentNode:
		return "comment"
	}
	return "non-text"
}

// mermaidLine is the whole of the chart's syntax as Markdown writes it.
var mermaidLine = regexp.MustCompile(`^(gantt|    dateFormat x|    axisFormat %H:%M:%S|    section [A-Za-z0-9._/=+@ -]+|    [A-Za-z0-9._/=+@ -]+ :(done|crit|active), c[0-9]+, [0-9]{13}, [0-9]{13})$`)

func hostileTrail(t *testing.T) (*sessions.Session, Trail) {
	t.Helper()
	var events []sessions.Event
	for i, h := range hostile {
		id := fmt.Sprintf("t%d", i)
		decision := ""
		if i%2 == 1 {
			decision = "deny"
		}
		events = append(events, answer(i*100, id, "PreToolUse", decision, h, bash("sh", "-c", h)))
	}
	events = append(events, hook(1000, "", "PreExecutionEnd", "gate|x", "blocked", "block", "no `tests`"))
	return newTrail(t, events...)
}

// TestMarkdownShowsTextAsText: a GFM parser reads every command and reason back as the text it
// was, in its own cell, with no link, image, HTML, emphasis or code span made of it; the chart is
// of the simple syntax only.
func TestMarkdownShowsTextAsText(t *testing.T) {
	t.Parallel()
	sess, tr := hostileTrail(t)
	var out bytes.Buffer
	if err := Markdown(&out, sess, tr, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	src := out.Bytes()
	rows := gfmCells(t, src)
	want := [][]string{{"Time", "Call", "Command or path", "Decision", "Duration", "Reason"}}
	for i, h := range hostile {
		decision := "passed"
		if i%2 == 1 {
			decision = "deny"
		}
		want = append(want, []string{clock(at(i*100), false), "Bash", Printable("sh -c " + shellWord(h, false)), decision, "0ms", Printable(h)})
	}
	want = append(want, []string{clock(at(995), false), "PreExecutionEnd", "hook gate|x", "block", "5ms", "no `tests`"})
	if fmt.Sprintf("%q", rows) != fmt.Sprintf("%q", want) {
		t.Errorf("table cells =\n%q\nwant\n%q\nMarkdown:\n%s", rows, want, src)
	}
	if !bytes.Contains(src, []byte("### agent-hooks session `"+sess.ID+"`")) {
		t.Errorf("no heading naming the session:\n%s", src)
	}

	chart := mermaidBlock(t, src)
	tasks := 0
	for _, line := range chart {
		if !mermaidLine.MatchString(line) {
			t.Errorf("chart line %q is not of the simple syntax", line)
		}
		if strings.Contains(line, ":crit,") {
			tasks++
		}
	}
	if tasks != 4 { // the three denied calls and the blocked hook
		t.Errorf("%d crit tasks, want 4:\n%s", tasks, strings.Join(chart, "\n"))
	}
}

// mermaidBlock is the lines of the document's one mermaid block.
func mermaidBlock(t *testing.T, src []byte) []string {
	t.Helper()
	var blocks [][]string
	doc := mdDoc(t, src)
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering && string(fc.Language(src)) == "mermaid" {
			var lines []string
			for i := 0; i < fc.Lines().Len(); i++ {
				seg := fc.Lines().At(i)
				lines = append(lines, strings.TrimRight(string(seg.Value(src)), "\n"))
			}
			blocks = append(blocks, lines)
		}
		return ast.WalkContinue, nil
	})
	if len(blocks) != 1 {
		t.Fatalf("%d mermaid blocks, want 1:\n%s", len(blocks), src)
	}
	return blocks[0]
}

// TestMarkdownBounded: a long session fits in MaxBytes, says how many rows it left out, and its
// chart stays under what GitHub renders.
func TestMarkdownBounded(t *testing.T) {
	t.Parallel()
	var events []sessions.Event
	const calls = 3000
	for i := range calls {
		events = append(events, answer(i*10, fmt.Sprintf("t%d", i), "PreToolUse", "", "", bash("go", "test", "./...", strings.Repeat("x", 60))))
	}
	sess, tr := newTrail(t, events...)
	const limit = 64 << 10
	var out bytes.Buffer
	if err := Markdown(&out, sess, tr, MarkdownOptions{MaxBytes: limit}); err != nil {
		t.Fatal(err)
	}
	src := out.Bytes()
	if out.Len() > limit {
		t.Errorf("%d bytes, want at most %d", out.Len(), limit)
	}
	rows := gfmCells(t, src)
	shown := len(rows) - 1
	if shown == 0 || shown == calls {
		t.Fatalf("%d rows shown of %d", shown, calls)
	}
	if want := fmt.Sprintf("%d more rows are not shown here", calls-shown); !bytes.Contains(src, []byte(want)) {
		t.Errorf("no %q line:\n%s", want, src[len(src)-300:])
	}
	chart := mermaidBlock(t, src)
	if n := len(strings.Join(chart, "\n")); n > maxMermaidBytes+200 {
		t.Errorf("the chart is %d bytes", n)
	}
	if !bytes.Contains(src, []byte(fmt.Sprintf("The chart shows the first %d of %d rows.", maxMermaidTasks, calls))) {
		t.Errorf("the chart does not say it is cut")
	}
}

func TestMarkdownEmpty(t *testing.T) {
	t.Parallel()
	sess, tr := newTrail(t)
	var out bytes.Buffer
	if err := Markdown(&out, sess, tr, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Nothing to show.") || strings.Contains(out.String(), "mermaid") {
		t.Errorf("empty session:\n%s", out.String())
	}
}
