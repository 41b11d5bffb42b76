// Package schema ships the JSON Schema of the native configuration file
// (.autoagent/config.json); editors pick it up through "$schema", and its test validates every
// example configuration in the repository against it.
package schema

import _ "embed"

// Config is the JSON Schema of .autoagent/config.json.
//
//go:embed config.schema.json
var Config []byte
