// Command gitcommit is the go-git baseline of bench/gitcommit.sh: it stages a work tree with
// go-git's own Worktree.AddWithOptions{All: true} and commits with Worktree.Commit, the way a
// program using go-git directly would, so that the benchmark can show what gitops' single walk
// saves.
//
// usage: go run ./bench/gitcommit DIR
package main

import (
	"fmt"
	"os"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gitcommit DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "gitcommit: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	r, err := git.PlainOpen(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return fmt.Errorf("add: %w", err)
	}
	sig := &object.Signature{Name: "Bench", Email: "bench@example.com", When: time.Now()}
	if _, err := wt.Commit("Complete issue #1: bench", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
