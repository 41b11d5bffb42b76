package gitattr

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitconfig"
	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// The conformance suite: attributes as git check-attr reports them, and content as git
// hash-object stores it, for the same files and configuration.

// stackOf is the attribute stack of the directory dir of the work tree root, as the walk of a
// work tree builds it: every .gitattributes from the top down (macros only at the top).
func stackOf(t *testing.T, base Stack, root, dir string) Stack {
	t.Helper()
	st := base
	parts := []string{}
	if dir != "" {
		parts = strings.Split(dir, "/")
	}
	for i := 0; i <= len(parts); i++ {
		f, err := ReadFile(filepath.Join(root, filepath.FromSlash(strings.Join(parts[:i], "/")), ".gitattributes"), parts[:i:i], i == 0)
		if err != nil {
			t.Fatal(err)
		}
		st = st.With(f)
	}
	return st
}

func dirOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// TestLookupIsCheckAttr: the attributes of every path, through macros, quoted patterns,
// directory-scoped files, ignored lines, info/attributes and core.attributesFile, are git
// check-attr -a's.
func TestLookupIsCheckAttr(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, nil)
	global := filepath.Join(e.Home, "attributes")
	gittest.WriteFiles(t, e.Home, map[string]string{"attributes": "*.glob custom=global\n*.txt custom=global-txt\n"})
	e.Git(t, dir, "config", "core.attributesFile", global)
	gittest.WriteFiles(t, dir, map[string]string{
		".gitattributes": `[attr]mybin -text -diff
* myattr=top
*.txt text
*.bin mybin
*.crlf eol=crlf
docs/** -myattr
"quoted name.txt" custom=quoted
sub/*.md text=auto eol=lf
*.id ident
!negated.txt text
x.txt -bad=x
x.txt =novalue
y.txt !text other
  # a comment
*.both binary text
`,
		"sub/.gitattributes":        "*.txt -text\n[attr]notamacro text\n*.md myattr=sub\nnotamacro.txt notamacro\n/anchored.txt anchored\n",
		".git/info/attributes":      "*.info text custom=info\n*.txt custom=info-wins\n",
		"sub/deeper/.gitattributes": "i.txt eol=crlf\n",
	})
	paths := []string{"a.txt", "b.bin", "c.crlf", "docs/d.txt", "docs/deep/e.md", "quoted name.txt", "sub/f.txt", "sub/g.md",
		"sub/h.id", "negated.txt", "x.txt", "y.txt", "y.info", "z.glob", "sub/deeper/i.txt", "sub/notamacro.txt", "sub/anchored.txt",
		"sub/deeper/anchored.txt", "w.both", "plain"}

	out := e.Git(t, dir, append([]string{"check-attr", "-z", "-a", "--"}, paths...)...)
	want := map[string][]string{}
	f := strings.Split(out, "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		want[f[i]] = append(want[f[i]], f[i+1]+"="+f[i+2])
	}

	gf, err := ReadFile(global, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadFile(filepath.Join(dir, ".git", "info", "attributes"), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	src := &Source{Base: Stack{Builtin}.With(gf), Info: info}
	for _, p := range paths {
		var got []string
		for name, st := range src.Lookup(stackOf(t, src.Base, dir, dirOf(p)), p) {
			switch {
			case st.Set:
				got = append(got, name+"=set")
			case st.Unset:
				got = append(got, name+"=unset")
			case st.Value != "":
				got = append(got, name+"="+st.Value)
			}
		}
		sort.Strings(got)
		w := want[p]
		sort.Strings(w)
		if strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("%s:\n  ours %v\n  git  %v", p, got, w)
		}
	}
}

// TestCleanIsHashObject: what ToGit stores for every kind of content, under every text, eol,
// crlf, binary and ident attribute and every core.autocrlf/core.eol, is what git hash-object
// stores for the same file.
func TestCleanIsHashObject(t *testing.T) {
	t.Parallel()
	contents := []struct{ name, data string }{
		{"lf", "a\nb\n"},
		{"crlf", "a\r\nb\r\n"},
		{"mixed", "a\r\nb\nc\r\n"},
		{"lonecr", "a\rb\r\n"},
		{"nul", "a\x00b\r\n"},
		{"ident", "$Id: whatever $\r\nx $Id$ y\n$Id: broken\n $\n$Id:"},
		{"ctrlz", "a\r\nb\r\n\x1a"},
		{"empty", ""},
		{"manycontrol", "\x01\x02\x03\x04\x05\r\n\x06\x07"},
	}
	attrs := []string{"", "text", "-text", "text=auto", "text eol=crlf", "text eol=lf", "eol=crlf", "eol=lf",
		"binary", "ident", "crlf", "-crlf", "crlf=input", "text=auto eol=crlf", "text=auto eol=lf", "ident text", "!text"}
	configs := [][]string{
		{},
		{"core.autocrlf", "true"},
		{"core.autocrlf", "input"},
		{"core.eol", "crlf"},
		{"core.eol", "lf"},
	}
	for _, kv := range configs {
		t.Run(strings.Join(kv, "="), func(t *testing.T) {
			t.Parallel()
			e := gittest.New(t)
			dir := e.Repo(t, nil)
			if len(kv) > 0 {
				e.Git(t, dir, "config", kv[0], kv[1])
			}
			e.Git(t, dir, "config", "core.safecrlf", "false")
			var lines strings.Builder
			files := map[string]string{}
			var names []string
			for i, a := range attrs {
				if a != "" {
					fmt.Fprintf(&lines, "a%02d-* %s\n", i, a)
				}
				for _, c := range contents {
					name := fmt.Sprintf("a%02d-%s", i, c.name)
					files[name] = c.data
					names = append(names, name)
				}
			}
			files[".gitattributes"] = lines.String()
			gittest.WriteFiles(t, dir, files)
			want := strings.Split(e.Git(t, dir, append([]string{"hash-object", "--"}, names...)...), "\n")

			cfg, err := gitconfig.Load(e.Getenv, filepath.Join(dir, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			conv := NewConverter(cfg)
			src := &Source{Base: Stack{Builtin}}
			stack := stackOf(t, src.Base, dir, "")
			for i, name := range names {
				ca := conv.For(src.Lookup(stack, name))
				out, _, err := conv.ToGit(name, []byte(files[name]), ca, nil, false)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := gitobj.ID(plumbing.BlobObject, out).String(); got != want[i] {
					t.Errorf("%s (%q): stored %q, git stores %s", name, attrs[i/len(contents)], out, want[i])
				}
				if ca.Identity() && string(out) != files[name] {
					t.Errorf("%s: Identity, but the content was converted", name)
				}
			}
		})
	}
}

// TestSafeCRLF: core.safecrlf=true refuses, and warn reports, a conversion a checkout would not
// undo, as git add does; git add's verdict on the same files is the reference.
func TestSafeCRLF(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"true", "warn"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := gittest.New(t)
			dir := e.Repo(t, nil)
			e.Git(t, dir, "config", "core.autocrlf", "input")
			e.Git(t, dir, "config", "core.safecrlf", mode)
			files := map[string]string{"crlf.txt": "a\r\nb\r\n", "lf.txt": "a\nb\n"}
			gittest.WriteFiles(t, dir, files)
			cfg, err := gitconfig.Load(e.Getenv, filepath.Join(dir, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			conv := NewConverter(cfg)
			src := &Source{Base: Stack{Builtin}}
			for name, data := range files {
				_, warning, err := conv.ToGit(name, []byte(data), conv.For(src.Lookup(Stack{Builtin}, name)), nil, true)
				out, gitErr := e.GitErr(dir, "add", name)
				gitRefused, gitWarned := gitErr != nil, strings.Contains(out, "CRLF will be replaced by LF")
				if (err != nil) != gitRefused || (warning != "") != gitWarned {
					t.Errorf("%s: err %v, warning %q; git add: %v\n%s", name, err, warning, gitErr, out)
				}
			}
		})
	}
}
