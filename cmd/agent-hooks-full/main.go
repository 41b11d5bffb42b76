// Command agent-hooks-full is agent-hooks with every command and every hook type: git commits
// and pushes, GitHub reviews, comments and approvals, notifications, remote sessions, the GitHub
// Action. The lean agent-hooks, which agents start on every tool call, hands it what it does not
// run itself; it can be run directly too.
package main

import "os"

func main() { os.Exit(Main()) }
