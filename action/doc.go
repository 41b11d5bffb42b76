// Package action holds no Go code: its install.sh is how action.yml (at the repository's root)
// gets the agent-hooks binary, and its test runs the steps of action.yml in an emulated runner
// (github/runnertest) against a release server on 127.0.0.1.
package action
