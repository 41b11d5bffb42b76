// Command agent-hooks runs the lifecycle hooks of autonomous coding agents.
package main

import "os"

func main() { os.Exit(Main()) }
