// Command pairtime compares the cost of commands on a shared, noisy machine: it runs them in
// alternating rounds (each round in a rotated order, so that none always runs first or after the
// same neighbour), so that a change of load hits all of them alike, and prints each one's median
// and best wall-clock time, its median processor time (user and system, its descendants
// included: less disturbed by load than the wall clock) and their ratios to the first command's. With -instr it also counts the
// instructions each executes in user space, child processes included, under valgrind's cachegrind
// (deterministic up to the Go runtime's scheduling and garbage collection: the median of -instr
// runs is reported), a measure that load does not change at all.
//
// Usage:
//
//	pairtime [-n rounds] [-instr runs] [-dir dir] -- NAME [VAR=VALUE...] [<FILE] CMD ARGS... -- NAME ...
//
// <FILE gives the command FILE as its standard input (otherwise it has none), so that a program
// reading its input is timed alone, not behind the shell a redirection would need.
//
// A command's output is discarded; a command that fails ends pairtime with its stderr, so that a
// benchmark never times an error. Output, one line a command:
//
//	NAME  wall median MS  best MS  ratio R  cpu median MS  ratio R  [instructions N  ratio R]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

type command struct {
	name       string
	env        []string // NAME=VALUE words before the command, added to the environment
	argv       []string
	stdin      string // file given as standard input; "" for none
	times, cpu []time.Duration
	instr      int64
}

func main() {
	rounds := flag.Int("n", 20, "rounds of wall-clock timing")
	instrRuns := flag.Int("instr", 0, "runs under cachegrind to count instructions (0: none)")
	dir := flag.String("dir", "", "working directory of the commands")
	flag.Parse()
	cmds, err := parse(flag.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "pairtime: %v\n", err)
		os.Exit(2)
	}
	for _, c := range cmds { // warm the page cache, and fail early
		if _, _, err := run(c, *dir); err != nil {
			fail(c, err)
		}
	}
	for r := 0; r < *rounds; r++ {
		for k := range cmds {
			c := cmds[(r+k)%len(cmds)]
			d, cpu, err := run(c, *dir)
			if err != nil {
				fail(c, err)
			}
			c.times = append(c.times, d)
			c.cpu = append(c.cpu, cpu)
		}
	}
	if *instrRuns > 0 {
		for _, c := range cmds {
			var counts []int64
			for i := 0; i < *instrRuns; i++ {
				n, err := instructions(c, *dir)
				if err != nil {
					fail(c, err)
				}
				counts = append(counts, n)
			}
			slices.Sort(counts)
			c.instr = counts[len(counts)/2]
		}
	}
	base := cmds[0]
	for _, c := range cmds {
		med, best, cpu := median(c.times), slices.Min(c.times), median(c.cpu)
		line := fmt.Sprintf("%-24s wall median %8.2f ms  best %8.2f ms  ratio %5.2fx  cpu median %8.2f ms  ratio %5.2fx",
			c.name, ms(med), ms(best), ms(med)/ms(median(base.times)), ms(cpu), ms(cpu)/ms(median(base.cpu)))
		if c.instr > 0 {
			line += fmt.Sprintf("  instructions %12d  ratio %5.2fx", c.instr, float64(c.instr)/float64(base.instr))
		}
		fmt.Println(line)
	}
}

// parse reads "-- NAME [VAR=VALUE...] [<FILE] CMD ARGS... -- NAME ...".
func parse(args []string) ([]*command, error) {
	var cmds []*command
	for len(args) > 0 {
		if args[0] == "--" {
			args = args[1:]
		}
		end := slices.Index(args, "--")
		if end < 0 {
			end = len(args)
		}
		if end < 2 {
			return nil, errors.New("want -- NAME CMD ARGS... for each command")
		}
		c := &command{name: args[0], argv: args[1:end]}
		for len(c.argv) > 1 && isAssignment(c.argv[0]) {
			c.env = append(c.env, c.argv[0])
			c.argv = c.argv[1:]
		}
		if len(c.argv) > 1 && strings.HasPrefix(c.argv[0], "<") {
			c.stdin, c.argv = c.argv[0][1:], c.argv[1:]
		}
		cmds = append(cmds, c)
		args = args[end:]
	}
	if len(cmds) == 0 {
		return nil, errors.New("no command to time")
	}
	return cmds, nil
}

// run runs argv and returns its wall-clock time and the processor time (user and system) it
// and the descendants it waited for used.
func run(c *command, dir string) (wall, cpu time.Duration, err error) {
	var stderr bytes.Buffer
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stderr = &stderr
	if cmd.Stdin, err = c.input(); err != nil {
		return 0, 0, err
	}
	defer closeInput(cmd.Stdin)
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return wall, cpu, fmt.Errorf("%w: %s", err, stderr.Bytes())
	}
	return wall, cpu, nil
}

var irefs = regexp.MustCompile(`(?m)^==\d+== I\s+refs:\s+([\d,]+)`)

// instructions runs argv under cachegrind, following child processes, and adds up the
// instructions of every process.
func instructions(c *command, dir string) (int64, error) {
	vg := append([]string{"valgrind", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
		"--cachegrind-out-file=/dev/null"}, c.argv...)
	var stderr bytes.Buffer
	cmd := exec.Command(vg[0], vg[1:]...)
	cmd.Dir = dir
	cmd.Stderr = &stderr
	in, err := c.input()
	if err != nil {
		return 0, err
	}
	defer closeInput(in)
	cmd.Stdin = in
	// valgrind does not know RDTSCP, which the Go runtime's locks use when they spin
	cmd.Env = append(append(os.Environ(), c.env...), "GODEBUG=cpu.rdtscp=off,"+os.Getenv("GODEBUG"))
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("valgrind: %w: %s", err, stderr.Bytes())
	}
	var total int64
	for _, m := range irefs.FindAllSubmatch(stderr.Bytes(), -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(string(m[1]), ",", ""), 10, 64)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if total == 0 {
		return 0, fmt.Errorf("valgrind reported no instruction count: %s", stderr.Bytes())
	}
	return total, nil
}

// input opens the command's standard input: its <FILE, or nothing (nil: the null device).
func (c *command) input() (io.Reader, error) {
	if c.stdin == "" {
		return nil, nil
	}
	return os.Open(c.stdin)
}

func closeInput(r io.Reader) {
	if f, ok := r.(*os.File); ok {
		f.Close()
	}
}

// isAssignment reports whether word is NAME=VALUE, as a shell reads one before a command.
func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func fail(c *command, err error) {
	fmt.Fprintf(os.Stderr, "pairtime: %s (%s): %v\n", c.name, strings.Join(c.argv, " "), err)
	os.Exit(1)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
