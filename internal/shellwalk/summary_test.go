package shellwalk

import (
	"strings"
)

// summary is a compact, comparable form of the commands: one per line, "via>via>words" with
// marks: * a wrapper, env before the words,, + open arguments, !kind what could not be read, env as NAME=VALUE first.
func summary(cmds []Command) string {
	var lines []string
	for _, c := range cmds {
		var b strings.Builder
		for _, a := range c.Env {
			b.WriteString(a.Name + "=" + a.Value.Text() + " ")
		}
		for _, v := range c.Via {
			b.WriteString(v + ">")
		}
		if c.Wrapper {
			b.WriteString("*")
		}
		words := make([]string, len(c.Args))
		for i, w := range c.Args {
			words[i] = w.Text()
		}
		b.WriteString(strings.Join(words, " "))
		if c.OpenArgs {
			b.WriteString(" +")
		}
		if c.Unknown != Readable {
			b.WriteString(" !" + c.Unknown.String())
			if c.Unknown == Code {
				b.WriteString("[" + c.Code.Text() + "]")
			}
		}
		lines = append(lines, b.String())
	}
	return strings.Join(lines, "\n")
}
