//go:build windows

package hooks

import "testing"

// reportCPU reports nothing on Windows.
func reportCPU(*testing.B) func() { return func() {} }
