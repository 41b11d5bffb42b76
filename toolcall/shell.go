package toolcall

import (
	"path"
	"slices"
	"strings"
)

// Simple is one simple command of a shell call as the shell walker read it, for FromShell.
type Simple struct {
	Command
	Redirects []Redirect
	// Wrapper: the program runs a command of its own (sudo, env, timeout, xargs, sh -c), which
	// follows as a Simple of its own; its own words name no file.
	Wrapper bool
	// AnyFile: an Unread part that may also write or read any file (Call.AnyFile).
	AnyFile bool
}

// Redirect is a redirection of a simple command to or from a file.
type Redirect struct {
	Op      string // ">", ">>", ">|", "&>", "&>>", "<", "<>", …
	Target  string // the file, as written (its source text when Dynamic)
	Dynamic bool   // named by an expansion
}

// FromShell is the call of a shell tool that runs cmds (in the order the walker found them):
// their commands, and the files they write, read and name, by what each program is known to do
// with its arguments. unreadable is the walker's reason when part of the command could not be
// read.
//
// A program agent-hooks does not know to leave its arguments alone (an interpreter, a build tool,
// git) names its literal arguments (Names): they may be written. Only programs known to read
// (cat, grep, …) or to touch no file (echo, printf) do not. A cd changes the directory of the
// relative paths after it; a cd to a directory named by an expansion makes them unknown (said in
// Unreadable) and they are taken relative to the workspace and to the call's directory both.
func FromShell(tool string, cmds []Simple, unreadable string, pl *Place) *Call {
	c := &Call{Tool: tool, Kind: KindShell, Unreadable: unreadable}
	dirs := []string{pl.Cwd} // the directories relative paths may be in
	add := func(list *[]string, word string) {
		if word == "" {
			return
		}
		if strings.Contains(word, "://") { // a URL, not a path
			if !slices.Contains(*list, word) {
				*list = append(*list, word)
			}
			return
		}
		for _, d := range dirs {
			if p := pl.NormalizeIn(d, expandHome(word, pl.Home)); !slices.Contains(*list, p) {
				*list = append(*list, p)
			}
		}
	}
	for _, s := range cmds {
		c.Commands = append(c.Commands, s.Command)
		if s.AnyFile && c.AnyFile == "" {
			c.AnyFile = s.Unread
		}
		for _, r := range s.Redirects {
			if r.Dynamic {
				continue
			}
			switch {
			case r.Op == "<":
				add(&c.Reads, r.Target)
			case r.Op == "<>":
				add(&c.Reads, r.Target)
				add(&c.Writes, r.Target)
			case strings.Contains(r.Op, ">") && !isFD(r.Target):
				add(&c.Writes, r.Target)
			}
		}
		if len(s.Argv) == 0 || s.Wrapper {
			continue
		}
		prog := path.Base(s.Argv[0])
		if s.IsDynamic(0) {
			prog = "" // a program named at run time: like any unknown program, it names its arguments
		}
		args, opts := splitArgs(s.Command)
		switch {
		case prog == "cd" || prog == "pushd":
			next := dirs[:0:0]
			switch {
			case len(args) == 0 && s.literalFrom(1):
				next = append(next, pl.Home)
			case len(args) > 0 && !args[0].dynamic:
				for _, d := range dirs {
					next = append(next, absIn(pl, d, expandHome(args[0].text, pl.Home)))
				}
			default:
				if c.Unreadable == "" {
					c.Unreadable = "cd to a directory named by an expansion: the paths after it are relative to a directory agent-hooks cannot know"
				}
				next = append(next, pl.Workspace)
				next = append(next, dirs...)
			}
			dirs = compact(next)
		case noFiles[prog]:
		case readers[prog]:
			for _, a := range args {
				if !a.dynamic {
					add(&c.Reads, a.text)
				}
			}
			if prog == "find" && (opts["delete"] || opts["fprint"] || opts["fprintf"] || opts["fls"]) {
				for _, a := range args {
					if !a.dynamic {
						add(&c.Writes, a.text)
					}
				}
			}
			if prog == "sort" && (opts["o"] || opts["output"]) {
				for _, a := range args {
					if !a.dynamic {
						add(&c.Names, a.text)
					}
				}
			}
		case writers[prog]:
			for _, a := range args {
				if !a.dynamic {
					add(&c.Writes, a.text)
				}
			}
		case prog == "cp" || prog == "install" || prog == "rsync" || prog == "scp" || prog == "ln":
			for i, a := range args {
				switch {
				case a.dynamic:
				case i == len(args)-1 && len(args) > 1 || opts["t"] || opts["target-directory"]:
					add(&c.Writes, a.text)
				case prog == "ln":
					add(&c.Names, a.text)
				default:
					add(&c.Reads, a.text)
				}
			}
			if prog == "ln" && len(args) == 1 && !args[0].dynamic {
				add(&c.Writes, path.Base(args[0].text))
			}
		case prog == "dd":
			for _, a := range args {
				if a.dynamic {
					continue
				}
				if v, ok := strings.CutPrefix(a.text, "of="); ok {
					add(&c.Writes, v)
				} else if v, ok := strings.CutPrefix(a.text, "if="); ok {
					add(&c.Reads, v)
				}
			}
		case prog == "sed" && (opts["i"] || opts["in-place"]):
			for _, a := range args {
				if !a.dynamic {
					add(&c.Writes, a.text)
				}
			}
		default:
			for _, a := range args {
				if !a.dynamic {
					add(&c.Names, a.text)
				}
			}
			for _, v := range optionValues(s.Command) {
				add(&c.Names, v)
			}
		}
	}
	return c
}

func compact(dirs []string) []string {
	out := dirs[:0]
	for _, d := range dirs {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
		if len(out) == 8 {
			break
		}
	}
	return out
}

// absIn is dir/p as an absolute, cleaned path.
func absIn(pl *Place, dir, p string) string {
	if path.IsAbs(p) || strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	if dir == "" {
		dir = pl.Cwd
	}
	return path.Join(dir, p)
}

func (s Simple) literalFrom(i int) bool {
	for _, d := range s.Dynamic {
		if d >= i {
			return false
		}
	}
	return true
}

func isFD(target string) bool {
	return target == "-" || target != "" && strings.Trim(target, "0123456789") == ""
}

func expandHome(p, home string) string {
	switch {
	case home == "":
	case p == "~" || p == "$HOME" || p == "${HOME}":
		return home
	case strings.HasPrefix(p, "~/"):
		return home + p[1:]
	case strings.HasPrefix(p, "$HOME/"):
		return home + p[5:]
	case strings.HasPrefix(p, "${HOME}/"):
		return home + p[7:]
	}
	return p
}

type arg struct {
	text    string
	dynamic bool
}

// splitArgs separates a command's operands from its options: the operands in order, and the
// names of the options given (short flags one by one). "--" ends the options.
func splitArgs(c Command) (args []arg, opts map[string]bool) {
	opts = map[string]bool{}
	end := false
	for i := 1; i < len(c.Argv); i++ {
		w := c.Argv[i]
		switch {
		case c.IsDynamic(i):
			args = append(args, arg{w, true})
		case end || w == "-" || !strings.HasPrefix(w, "-"):
			args = append(args, arg{w, false})
		case w == "--":
			end = true
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w[2:], "=")
			opts[name] = true
		default:
			for j := 1; j < len(w); j++ {
				opts[w[j:j+1]] = true
			}
		}
	}
	return args, opts
}

// optionValues are the values of a command's --option=value words: they may be paths.
func optionValues(c Command) []string {
	var out []string
	for i := 1; i < len(c.Argv); i++ {
		w := c.Argv[i]
		if w == "--" {
			break
		}
		if c.IsDynamic(i) || !strings.HasPrefix(w, "--") {
			continue
		}
		if _, v, ok := strings.Cut(w, "="); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// noFiles are programs that touch no file named by their arguments (their redirections still
// count).
var noFiles = setOf("echo", "printf", "true", "false", "pwd", "date", "sleep", "seq", "yes", "expr",
	"test", "[", "[[", "kill", "whoami", "id", "uname", "hostname", "export", "unset", "set",
	"shift", "exit", "return", "read", "wait", "jobs", "alias", "type", "which", "command", "hash",
	"local", "declare", "typeset", "let", "break", "continue", "getopts", "trap", "umask", "ulimit",
	"popd", "dirs", "basename", "dirname", "nproc", "tty", "logname", "groups", "printenv")

// readers are programs known to read the files their operands name and write none (other than
// through a redirection). find is one unless it deletes or prints to a file.
var readers = setOf("cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag",
	"wc", "diff", "cmp", "file", "stat", "ls", "tree", "du", "sort", "uniq", "cut", "tr", "nl",
	"od", "xxd", "hexdump", "strings", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
	"sha512sum", "b2sum", "cksum", "sum", "base64", "base32", "jq", "column", "fold", "fmt",
	"paste", "comm", "join", "look", "realpath", "readlink", "bat", "batcat", "find", "zcat",
	"bzcat", "xzcat", "zless", "zgrep", "tac", "rev", "expand", "unexpand", "pr", "iconv", "lsattr",
	"getfacl", "namei", "wdiff", "colordiff", "diff3", "sdiff")

// writers are programs that write (create, change, delete or re-mode) every file their operands
// name.
var writers = setOf("rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "mkfifo",
	"mknod", "chmod", "chown", "chgrp", "chattr", "setfacl", "tee", "mv")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
