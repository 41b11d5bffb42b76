package agents

import (
	"strings"

	"github.com/autoagent/agent-hooks/toolcall"
	"mvdan.cc/sh/v3/syntax"
)

// shellSimples reads a shell command into its simple commands and their redirections, for the
// normalized call; unreadable says why part of it could not be read.
//
// vars are variables whose values are known before the command runs (HOME): a word that expands
// only those is literal.
func shellSimples(command string, vars map[string]string) ([]toolcall.Simple, string) {
	var out []toolcall.Simple
	unreadable := ""
	var read func(src, via string, depth int)
	read = func(src, via string, depth int) {
		if depth > 8 {
			unreadable = "scripts nested too deep"
			return
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			if unreadable == "" {
				unreadable = "the command does not parse: " + err.Error()
			}
			return
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			st, ok := n.(*syntax.Stmt)
			if !ok {
				return true
			}
			s := toolcall.Simple{}
			s.Via = via
			for _, r := range st.Redirs {
				if r.Word == nil || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
					continue
				}
				lit, dynamic := wordText(r.Word, vars)
				s.Redirects = append(s.Redirects, toolcall.Redirect{Op: r.Op.String(), Target: lit, Dynamic: dynamic})
			}
			if call, ok := st.Cmd.(*syntax.CallExpr); ok {
				for i, w := range call.Args {
					lit, dynamic := wordText(w, vars)
					s.Argv = append(s.Argv, lit)
					if dynamic {
						s.Dynamic = append(s.Dynamic, i)
						if !quoted(w) {
							s.Split = append(s.Split, i)
						}
					}
				}
				if len(s.Argv) >= 3 && !s.IsDynamic(0) && isShell(s.Argv[0]) && s.Argv[1] == "-c" {
					if s.IsDynamic(2) {
						unreadable = "it runs a script named by an expansion: " + s.Argv[2]
					} else {
						read(s.Argv[2], s.Argv[0]+" -c", depth+1)
					}
				}
				if len(s.Argv) >= 2 && s.Argv[0] == "eval" {
					if len(s.Dynamic) == 0 {
						read(strings.Join(s.Argv[1:], " "), "eval", depth+1)
					} else {
						unreadable = "eval of an expansion"
					}
				}
			}
			if len(s.Argv) > 0 || len(s.Redirects) > 0 {
				out = append(out, s)
			}
			return true
		})
	}
	read(command, "", 0)
	return out, unreadable
}

func isShell(p string) bool {
	switch p[strings.LastIndexByte(p, '/')+1:] {
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		return true
	}
	return false
}

// wordText is a word's value when it is literal (quotes removed), else its source text.
func wordText(w *syntax.Word, vars map[string]string) (string, bool) {
	var b strings.Builder
	dynamic := false
	var add func(parts []syntax.WordPart)
	add = func(parts []syntax.WordPart) {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				add(p.Parts)
			case *syntax.ParamExp:
				v, ok := vars[p.Param.Value]
				if !ok || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Exp != nil {
					dynamic = true
					continue
				}
				b.WriteString(v)
			default:
				dynamic = true
			}
		}
	}
	add(w.Parts)
	if dynamic {
		var src strings.Builder
		syntax.NewPrinter().Print(&src, w)
		return src.String(), true
	}
	return b.String(), false
}

// quoted reports whether a word is one double-quoted part (its expansions are one word).
func quoted(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.DblQuoted)
	return ok
}
