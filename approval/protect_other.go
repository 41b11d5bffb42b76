//go:build !linux

package approval

// ProtectMemory does nothing here. On macOS reading another process's memory needs root or the
// debugger's entitlement already; on Windows and the BSDs a process of the same user may be able
// to read this one's memory, so a secret held here is only as safe as the agent is kept from
// running as the same user.
func ProtectMemory() error { return nil }
