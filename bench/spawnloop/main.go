// Command spawnloop runs `sh -c true` N times (default 50) with os/exec, one after the other, and
// nothing else: the floor under any Go hook runner's "50 hooks" row in bench/core.sh, the cost of
// starting and awaiting a process from Go next to dash's fork and exec.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

func main() {
	n := 50
	if len(os.Args) > 1 {
		var err error
		if n, err = strconv.Atoi(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "usage: spawnloop [N]")
			os.Exit(1)
		}
	}
	for range n {
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
