// Command gitcommit stages every change of a work tree and commits it with gitops, the way the
// git-commit hook type does but without the rest of agent-hooks (configuration, sessions, audit),
// so that bench/gitcommit.sh can set its time and memory beside `git add -A && git commit`'s. It
// can write CPU and heap profiles of that one commit.
//
// usage: go run ./bench/gitcommit [-cpuprofile FILE] [-memprofile FILE] DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/autoagent/agent-hooks/gitops"
)

func main() {
	cpu := flag.String("cpuprofile", "", "write a CPU profile of the commit to `file`")
	mem := flag.String("memprofile", "", "write a heap profile (allocations) to `file` after the commit")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gitcommit [-cpuprofile FILE] [-memprofile FILE] DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *cpu, *mem); err != nil {
		fmt.Fprintf(os.Stderr, "gitcommit: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, cpuProfile, memProfile string) error {
	if memProfile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	r, err := gitops.Open(dir, gitops.Env{Getenv: os.Getenv, Environ: os.Environ()})
	if err != nil {
		return err
	}
	res, err := r.Commit(context.Background(), gitops.CommitOptions{Message: "Complete issue #1: bench", Out: os.Stderr})
	if err != nil {
		return err
	}
	if !res.Changes {
		return fmt.Errorf("nothing to commit in %s", dir)
	}
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC() // the profile is as of the last collection: make that now
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	return nil
}
