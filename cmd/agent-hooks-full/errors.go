package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// plainErrors makes cobra's and pflag's own errors read as agent-hooks' do, naming the command,
// what it wants and its usage: "accepts 1 arg(s), received 0" and "strconv.ParseInt: parsing
// "x": invalid syntax" are Go's words, not a user's. Every command's argument check is wrapped;
// the flag errors go through root's FlagErrorFunc, which subcommands inherit.
func plainErrors(root *cobra.Command) {
	var wrap func(c *cobra.Command)
	wrap = func(c *cobra.Command) {
		if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return argsError(cmd, err)
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			wrap(sub)
		}
	}
	wrap(root)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return flagError(cmd, err) })
}

// cobra's messages of its argument checks (cobra.ExactArgs, MaximumNArgs, MinimumNArgs,
// RangeArgs).
// Compiled when an error needs them, not at every start.
var (
	argsExact   = lazyRegexp(`^accepts (\d+) arg\(s\), received (\d+)$`)
	argsAtMost  = lazyRegexp(`^accepts at most (\d+) arg\(s\), received (\d+)$`)
	argsAtLeast = lazyRegexp(`^requires at least (\d+) arg\(s\), only received (\d+)$`)
	argsBetween = lazyRegexp(`^accepts between (\d+) and (\d+) arg\(s\), received (\d+)$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// argsError rewords an argument check's error of cmd; others (an unknown subcommand, with its
// suggestions) are kept.
func argsError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var want, got string
	switch {
	case argsExact().MatchString(msg):
		m := argsExact().FindStringSubmatch(msg)
		want, got = count(m[1], "argument"), m[2]
	case argsAtMost().MatchString(msg):
		m := argsAtMost().FindStringSubmatch(msg)
		want, got = "at most "+count(m[1], "argument"), m[2]
	case argsAtLeast().MatchString(msg):
		m := argsAtLeast().FindStringSubmatch(msg)
		want, got = "at least "+count(m[1], "argument"), m[2]
	case argsBetween().MatchString(msg):
		m := argsBetween().FindStringSubmatch(msg)
		want, got = m[1]+" to "+m[2]+" arguments", m[3]
	default:
		return err
	}
	return fmt.Errorf("%s takes %s, got %s (usage: %s)", commandName(cmd), want, got, cmd.UseLine())
}

func count(n, word string) string {
	if n == "1" {
		return "1 " + word
	}
	if n == "0" {
		return "no " + word + "s"
	}
	return n + " " + word + "s"
}

// pflag's message for a value its type cannot parse.
var badFlagValue = lazyRegexp(`^invalid argument "((?:[^"\\]|\\.)*)" for "([^"]+)" flag: (.*)$`)

// flagError rewords a flag's parse error of cmd: which flag, what it wants, what it got.
func flagError(cmd *cobra.Command, err error) error {
	m := badFlagValue().FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %w (see %s --help)", commandName(cmd), err, cmd.CommandPath())
	}
	value, _ := strconv.Unquote(`"` + m[1] + `"`)
	name := m[2]
	if m := longFlag().FindString(name); m != "" {
		name = m
	}
	var want string
	var numErr *strconv.NumError
	switch flagType(cmd, name) {
	case "int", "int64", "int32", "uint", "uint64", "count":
		want = "a whole number"
	case "float64", "float32":
		want = "a number"
	case "bool":
		want = "true or false"
	case "duration":
		want = "a duration such as 30s or 10m"
	default:
		if errors.As(err, &numErr) {
			want = "a number"
		} else {
			want = m[3]
		}
	}
	return fmt.Errorf("%s: %s: want %s, got %q", commandName(cmd), name, want, value)
}

// commandName is cmd's path without the program's name, which every error already starts with
// ("session list"); the program's for root.
func commandName(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// flagType is the pflag type name of cmd's flag written as name ("--limit", or "-n, --limit").
func flagType(cmd *cobra.Command, name string) string {
	if m := longFlag().FindStringSubmatch(name); m != nil {
		if f := cmd.Flags().Lookup(m[1]); f != nil {
			return f.Value.Type()
		}
	}
	if m := shortFlag().FindStringSubmatch(name); m != nil {
		if f := cmd.Flags().ShorthandLookup(m[1]); f != nil {
			return f.Value.Type()
		}
	}
	return ""
}

var (
	longFlag  = lazyRegexp(`--([A-Za-z0-9-]+)`)
	shortFlag = lazyRegexp(`^-([A-Za-z0-9])$`)
)
