//go:build tools

// Package tools pins modules that the project's packages are about to use, so that parallel work
// does not fight over go.mod.
package tools

import (
	_ "github.com/go-git/go-git/v5"
	_ "github.com/google/go-github/v60/github"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/sethvargo/go-githubactions"
	_ "github.com/sourcegraph/conc"
	_ "github.com/spf13/cobra"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/syntax"
	_ "github.com/creack/pty"
)
