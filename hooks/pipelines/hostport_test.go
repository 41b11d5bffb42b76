package pipelines

import (
	"net"
	"testing"
)

// TestJoinHostPortIsNets: the lean program's joinHostPort writes what net.JoinHostPort writes.
func TestJoinHostPortIsNets(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "localhost", "::1", "fe80::1%eth0", "", "example.com"} {
		if got, want := joinHostPort(host, "8080"), net.JoinHostPort(host, "8080"); got != want {
			t.Errorf("joinHostPort(%q) = %q, want %q", host, got, want)
		}
	}
}
