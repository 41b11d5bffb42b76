package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitLineEndingsMatchGit commits each case twice, with `git add -A && git commit` and with
// gitops, in twin copies of one repository: the trees must be identical, and git status and
// git diff-files must see both work trees the same way afterwards.
func TestCommitLineEndingsMatchGit(t *testing.T) {
	t.Parallel()
	const ctrl = "\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
	for _, tc := range []struct {
		name    string
		initial map[string]string // committed by git first
		config  []string          // git config key value …, set after the initial commit
		info    string            // .git/info/attributes
		global  string            // the file named by core.attributesFile
		change  map[string]string
		remove  []string
		sel     []string // git add these paths rather than -A
	}{
		{name: "no attributes keep CRLF", change: map[string]string{"a.txt": "x\r\ny\r\n", "b.txt": "lf\n"}},
		{name: "text=auto", change: map[string]string{
			".gitattributes":  "* text=auto\n",
			"crlf.txt":        "a\r\nb\r\n",
			"mixed.txt":       "a\r\nb\nc\r\n",
			"lone-cr.txt":     "a\rb\r\n",
			"nul.bin":         "a\x00b\r\n",
			"control.bin":     ctrl + "\r\n",
			"few-control.txt": strings.Repeat("printable text ", 20) + "\x01\r\n",
			"ctrl-z.txt":      "a\r\nb\r\n\x1a",
			"empty.txt":       "",
			"no-eol.txt":      "a\r\nb",
		}},
		{name: "text=auto keeps CRLF already in the index",
			initial: map[string]string{"legacy.txt": "a\r\nb\r\n", "legacy-bin.txt": "a\x00\r\n", "lf.txt": "a\n"},
			change: map[string]string{
				".gitattributes": "* text=auto\n",
				"legacy.txt":     "a\r\nb\r\nc\r\n",
				"legacy-bin.txt": "b\r\n",
				"lf.txt":         "a\r\nb\r\n",
				"new.txt":        "n\r\n",
			}},
		{name: "text converts only CR before LF", change: map[string]string{
			".gitattributes": "*.txt text\n",
			"t.txt":          "a\rb\r\nc\r\n",
			"nul.txt":        "a\x00\r\n",
			"cr-at-end.txt":  "a\r\nb\r",
			"other.dat":      "x\r\n",
		}},
		{name: "-text and binary", change: map[string]string{
			".gitattributes": "* text\n*.raw -text\n*.bin binary\n",
			"a.txt":          "a\r\n",
			"a.raw":          "a\r\n",
			"a.bin":          "a\r\n",
		}},
		{name: "eol", change: map[string]string{
			".gitattributes": "*.crlf eol=crlf\n*.lf eol=lf\n*.auto text=auto eol=crlf\n",
			"a.crlf":         "a\r\nb\n",
			"a.lf":           "a\r\nb\n",
			"a.auto":         "a\r\n",
			"b.auto":         "a\x00\r\n",
			"none.txt":       "a\r\n",
		}},
		{name: "core.autocrlf true", config: []string{"core.autocrlf", "true"}, change: map[string]string{
			"crlf.txt": "a\r\nb\r\n", "nul.bin": "a\x00\r\n", "lone-cr.txt": "a\rb\r\n",
		}},
		{name: "core.autocrlf input", config: []string{"core.autocrlf", "input"}, change: map[string]string{
			"crlf.txt": "a\r\nb\r\n", "nul.bin": "a\x00\r\n",
		}},
		{name: "core.autocrlf false with core.eol crlf", config: []string{"core.autocrlf", "false", "core.eol", "crlf"}, change: map[string]string{
			".gitattributes": "*.t text\n", "a.txt": "a\r\n", "a.t": "a\r\n",
		}},
		{name: "core.autocrlf true keeps CRLF in the index", config: []string{"core.autocrlf", "true"},
			initial: map[string]string{"legacy.txt": "a\r\n"},
			change:  map[string]string{"legacy.txt": "a\r\nb\r\n", "fresh.txt": "a\r\n"}},
		{name: "core.autocrlf true with -text", config: []string{"core.autocrlf", "true"}, change: map[string]string{
			".gitattributes": "*.keep -text\n", "a.keep": "a\r\n", "a.txt": "a\r\n",
		}},
		{name: "!text falls back to core.autocrlf", config: []string{"core.autocrlf", "true"}, change: map[string]string{
			".gitattributes": "* -text\n*.u !text\n", "a.u": "a\r\n", "a.txt": "a\r\n",
		}},
		{name: "legacy crlf attribute", change: map[string]string{
			".gitattributes": "*.a crlf\n*.b -crlf\n*.c crlf=input\n*.d text -crlf\n",
			"x.a":            "a\r\n", "x.b": "a\r\n", "x.c": "a\r\n", "x.d": "a\r\n",
		}},
		{name: "deeper .gitattributes win", change: map[string]string{
			".gitattributes":       "* text\n",
			"sub/.gitattributes":   "*.txt -text\n",
			"root.txt":             "a\r\n",
			"sub/s.txt":            "a\r\n",
			"sub/s.md":             "a\r\n",
			"sub/deeper/d.txt":     "a\r\n",
			"other/.gitattributes": "o.txt !text\n",
			"other/o.txt":          "a\r\n",
		}},
		{name: "patterns", change: map[string]string{
			".gitattributes": "/top.txt text\ndocs/*.md text\ndocs/ -text\n**/deep/*.c text\n\"with space.txt\" text\n!neg.txt text\nab?.q text\n[xy].r text\n",
			"top.txt":        "a\r\n",
			"x/top.txt":      "a\r\n",
			"docs/a.md":      "a\r\n",
			"docs/sub/b.md":  "a\r\n",
			"a/b/deep/c.c":   "a\r\n",
			"deep/c.c":       "a\r\n",
			"with space.txt": "a\r\n",
			"neg.txt":        "a\r\n",
			"abc.q":          "a\r\n",
			"x.r":            "a\r\n",
			"z.r":            "a\r\n",
		}},
		{name: "info/attributes win", info: "*.txt text\n", change: map[string]string{
			".gitattributes": "* -text\n", "a.txt": "a\r\n", "a.md": "a\r\n",
		}},
		{name: "core.attributesFile is lowest", global: "*.txt text\n*.md text\n", change: map[string]string{
			".gitattributes": "*.md -text\n", "a.txt": "a\r\n", "a.md": "a\r\n",
		}},
		{name: "macros", info: "[attr]crlfy text eol=crlf\n", change: map[string]string{
			".gitattributes":     "[attr]lf text eol=lf\n*.l lf\n*.c crlfy\n*.x binary text\n*.y text binary\n*.n -lf\n",
			"sub/.gitattributes": "[attr]sneaky -text\n*.s sneaky text\n",
			"a.l":                "a\r\n", "a.c": "a\r\n", "a.x": "a\r\n", "a.y": "a\r\n", "a.n": "a\r\n",
			"sub/a.s": "a\r\n",
		}},
		{name: "a .gitattributes whose deletion is staged no longer applies",
			initial: map[string]string{".gitattributes": "*.txt text\n", "sub/.gitattributes": "*.md text\n"},
			change:  map[string]string{"a.txt": "a\r\n", "sub/b.md": "b\r\n"},
			remove:  []string{".gitattributes", "sub/.gitattributes"}},
		{name: "a .gitattributes deleted but not staged still applies",
			initial: map[string]string{".gitattributes": "*.txt text\n", "sub/.gitattributes": "*.md text\n"},
			change:  map[string]string{"a.txt": "a\r\n", "sub/b.md": "b\r\n"},
			remove:  []string{".gitattributes", "sub/.gitattributes"},
			sel:     []string{"a.txt", "sub/b.md"}},
		{name: "ident", change: map[string]string{
			".gitattributes": "*.c ident\n*.t ident text\n",
			"a.c":            "$Id: stale 123 $\r\nkeep $Id$ and $Id: no end\nnext $\n$Id:x$",
			"a.t":            "$Id: x $\r\n",
			"plain.txt":      "$Id: untouched $\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			dir := e.newRepo(t, tc.initial)
			for i := 0; i+1 < len(tc.config); i += 2 {
				e.git(t, dir, "config", tc.config[i], tc.config[i+1])
			}
			if tc.info != "" {
				writeFiles(t, dir, map[string]string{".git/info/attributes": tc.info})
			}
			if tc.global != "" {
				p := filepath.Join(e.home, "attributes")
				must(t, os.WriteFile(p, []byte(tc.global), 0o644))
				e.git(t, dir, "config", "core.attributesFile", p)
			}
			writeFiles(t, dir, tc.change)
			for _, p := range tc.remove {
				must(t, os.Remove(filepath.Join(dir, p)))
			}
			twin := copyTree(t, dir)
			var sel Selection
			if tc.sel != nil {
				sel.Paths = tc.sel
				e.git(t, twin, append([]string{"add", "--"}, tc.sel...)...)
			} else {
				e.git(t, twin, "add", "-A")
			}
			e.git(t, twin, "commit", "-q", "-m", "by git")
			if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops", Selection: sel}); err != nil {
				t.Fatal(err)
			}
			if got, want := e.git(t, dir, "ls-tree", "-r", "HEAD"), e.git(t, twin, "ls-tree", "-r", "HEAD"); got != want {
				t.Errorf("tree:\n%s\ngit's:\n%s", got, want)
				for name := range tc.change {
					if g, w := e.git(t, dir, "cat-file", "-p", "HEAD:"+name), e.git(t, twin, "cat-file", "-p", "HEAD:"+name); g != w {
						t.Errorf("%s: %q, git stores %q", name, g, w)
					}
				}
			}
			if got, want := e.gitStdout(t, dir, "status", "--porcelain"), e.gitStdout(t, twin, "status", "--porcelain"); got != want {
				t.Errorf("git status:\n%s\nafter git's commit:\n%s", got, want)
			}
			if got, want := e.gitStdout(t, dir, "diff-files", "--name-status"), e.gitStdout(t, twin, "diff-files", "--name-status"); got != want {
				t.Errorf("git diff-files:\n%s\nafter git's commit:\n%s", got, want)
			}
			e.fsck(t, dir)
		})
	}
}

// TestCommitSafeCRLF: core.safecrlf=true makes git add refuse a conversion that a checkout would
// not undo; so does gitops, naming the file, and nothing is committed.
func TestCommitSafeCRLF(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{".gitattributes": "*.txt text eol=lf\n"})
	e.git(t, dir, "config", "core.safecrlf", "true")
	writeFiles(t, dir, map[string]string{"a.txt": "a\r\n"})
	if _, err := e.gitErr(dir, "add", "a.txt"); err == nil {
		t.Fatal("git add accepted it")
	}
	before := e.git(t, dir, "rev-parse", "HEAD")
	_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "crlf"})
	if err == nil || !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), "CRLF would be replaced by LF") {
		t.Fatalf("err = %v, want the safecrlf refusal", err)
	}
	var ue *UnfinishedError
	if errors.As(err, &ue) {
		t.Errorf("wrong error type %T", err)
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD moved to %s", got)
	}

	// safecrlf=warn (git's default) converts with a warning.
	e.git(t, dir, "config", "core.safecrlf", "warn")
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "crlf"})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "in the working copy of 'a.txt', CRLF will be replaced by LF the next time Git touches it") {
		t.Errorf("warnings = %q", w)
	}
	if got := e.git(t, dir, "cat-file", "-p", "HEAD:a.txt"); got != "a" {
		t.Errorf("stored %q", got)
	}
}
