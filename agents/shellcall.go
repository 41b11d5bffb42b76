package agents

import (
	"strings"

	"github.com/autoagent/agent-hooks/internal/shellwalk"
	"github.com/autoagent/agent-hooks/toolcall"
)

// shellSimples reads a shell command with the project's shell walker into the simple commands of
// the normalized call, with their redirections; unreadable says why part of it could not be read.
// A part the walker could not read at all is a command of its own, Unread: rules take it as
// any command (and, past the walker's bounds or its parser, as touching any file).
//
// vars are variables whose values are known before the command runs (HOME): a word that expands
// only those is literal.
func shellSimples(command string, vars map[string]string) ([]toolcall.Simple, string) {
	var out []toolcall.Simple
	unreadable := ""
	for _, c := range shellwalk.WalkKnown(command, vars) {
		if c.Unknown != shellwalk.Readable && unreadable == "" {
			unreadable = c.Why
		}
		switch c.Unknown {
		case shellwalk.Unparsed, shellwalk.Unreadable:
			// The walker read nothing of this part: what it runs, and the files it touches, could
			// be anything (a line that does not parse follows lines bash runs first).
			out = append(out, toolcall.Simple{Command: toolcall.Command{Unread: c.Why, Via: strings.Join(c.Via, " ")}, AnyFile: true})
		case shellwalk.ScriptExpansion:
			// `sh -c "$X"`, `eval "$X"`: a script named at run time, as a program can be ($X -rf).
			out = append(out, toolcall.Simple{Command: toolcall.Command{Unread: c.Why, Via: strings.Join(c.Via, " ")}})
		}
		if len(c.Args) == 0 && len(c.Redirs) == 0 {
			continue
		}
		s := toolcall.Simple{}
		s.Via = strings.Join(c.Via, " ")
		s.MoreArgs = c.OpenArgs
		s.Wrapper = c.Wrapper
		for i, w := range c.Args {
			text, literal := wordValue(w)
			s.Argv = append(s.Argv, text)
			if !literal {
				s.Dynamic = append(s.Dynamic, i)
				if !quotedWord(w.Source) {
					s.Split = append(s.Split, i)
				}
			}
		}
		for _, r := range c.Redirs {
			switch r.Op {
			case "<<", "<<-", "<<<", ">&", "<&":
				continue // here-documents and strings, descriptors: no file
			}
			text, literal := wordValue(r.Target)
			s.Redirects = append(s.Redirects, toolcall.Redirect{Op: r.Op, Target: text, Dynamic: !literal})
		}
		out = append(out, s)
	}
	return out, unreadable
}

// wordValue is a word's value when it is literal, or when it expands only variables whose values
// are known ("$HOME/.ssh", "$F" after F=x); else its source text.
func wordValue(w shellwalk.Word) (string, bool) {
	switch {
	case w.Literal:
		return w.Value, true
	case w.Known:
		return w.Resolved, true
	}
	return w.Source, false
}

// quotedWord reports whether a word is written as one double-quoted string, whose expansions
// are one word.
func quotedWord(source string) bool {
	return len(source) >= 2 && source[0] == '"' && source[len(source)-1] == '"'
}
