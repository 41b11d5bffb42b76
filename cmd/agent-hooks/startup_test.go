package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// programs are the two programs: the lean one agents start on every tool call, and the full one
// it hands the rest to (which a hand-off starts on a tool call too).
var programs = []string{".", "../agent-hooks-full"}

// TestLeanLinksNoHeavyLibrary: the program agents start on every tool call links none of the
// libraries whose package initialisers and size made its start-up 3.5x a hello world: go-git,
// go-github, net/http (and TLS), OpenTelemetry, cobra.
func TestLeanLinksNoHeavyLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	heavy := []string{"github.com/go-git/", "github.com/google/go-github/", "net/http", "crypto/tls", "go.opentelemetry.io/", "github.com/spf13/cobra", "github.com/sethvargo/go-githubactions"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(pkg, h) {
				t.Errorf("agent-hooks links %s", pkg)
			}
		}
	}
}

// TestNoRegexpCompiledAtStartup: agents call agent-hooks on every tool call, so its start-up is
// paid hundreds of times a session, and a package-level regexp.MustCompile is paid on every
// start, whether the command uses it or not. The module's packages linked into either program
// compile their regular expressions on first use (sync.OnceValue) instead.
func TestNoRegexpCompiledAtStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: lists the binary's packages with the go command; runs without -short")
	}
	for _, prog := range programs {
		noRegexpCompiledAtStartup(t, prog)
	}
}

func noRegexpCompiledAtStartup(t *testing.T, prog string) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, prog).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/autoagent/agent-hooks"
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	rootDir := string(bytes.TrimSpace(root))
	fset := token.NewFileSet()
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.HasPrefix(fields[0], rootDir) {
			continue // another module's package
		}
		for _, name := range fields[1:] {
			path := filepath.Join(fields[0], name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						if call, ok := v.(*ast.CallExpr); ok && isRegexpCompile(call.Fun) {
							t.Errorf("%s: compiled at start-up; wrap it in sync.OnceValue", fset.Position(call.Pos()))
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file of the module checked")
	}
}

func isRegexpCompile(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile")
}

// TestLinkerDropsUnusedMethods: the linker leaves out the methods a program never calls, unless a
// function it links calls reflect's Method or MethodByName with a name known only when it runs
// (text/template's field and method lookup does): then every exported method of every linked
// type stays, the go-github API's thousands of accessors among them. That made the binary 8 MB
// larger (27.4 MB against 19.3), and its start-up, paid on every tool call of an agent, about
// 10% slower. The linker marks such a function <ReflectMethod> in its -dumpdep output.
//
// The one accepted exception is the rules' expression language, github.com/expr-lang/expr,
// chosen by the product for its start-up (see docs/architecture.md): it calls methods by name on
// the values an expression reads, so its functions are marked, and with them the reflection and
// text/template functions their reach makes linked. Measured: this program went from 20.5 MB to
// 30.5 MB and its `version` start-up 1.07x (40 paired runs). The lean agent-hooks of the per-call
// path links no go-github, which is where the kept methods weigh; any other function marked is
// still an error.
func TestLinkerDropsUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: links agent-hooks; runs without -short")
	}
	for _, prog := range programs {
		linkerDropsUnusedMethods(t, prog)
	}
}

func linkerDropsUnusedMethods(t *testing.T, prog string) {
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "agent-hooks"), prog)
	var deps bytes.Buffer
	cmd.Stderr = &deps
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v\n%.2000s", err, deps.String())
	}
	if !strings.Contains(deps.String(), "main.main -> ") {
		t.Fatalf("go build -ldflags=-dumpdep printed no dependency of main.main:\n%.2000s", deps.String())
	}
	marked := map[string]bool{}
	for _, line := range strings.Split(deps.String(), "\n") {
		caller, _, ok := strings.Cut(line, " -> ")
		if name, isMarked := strings.CutSuffix(caller, " <ReflectMethod>"); ok && isMarked && !marked[name] && !exprReach(name) {
			marked[name] = true
			t.Errorf("%s linked: %s, which looks methods up by name: every exported method stays in the binary", prog, name)
		}
	}
}

// exprReach reports whether a function marked <ReflectMethod> is expr's, or one that expr's
// method lookups make linked (reflect's method listings, text/template's field lookup through
// cobra's kept methods).
func exprReach(name string) bool {
	return strings.HasPrefix(name, "github.com/expr-lang/expr/") ||
		strings.HasPrefix(name, "reflect.") && strings.Contains(name, "Methods") ||
		name == "text/template.(*state).evalField"
}
