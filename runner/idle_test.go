package runner

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIdleLimit: sessions.idleEnd of a workspace is read from the native files a run there
// reads, in their order (managed over project over user), and a file that does not say one
// readably is an error, never the default.
func TestIdleLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		managed, project, user string // "" for no file
		want                   time.Duration
		wantErr                string
	}{
		{name: "nothing configured", want: 24 * time.Hour},
		{name: "user", user: `{"sessions": {"idleEnd": "2h"}}`, want: 2 * time.Hour},
		{name: "project over user", user: `{"sessions": {"idleEnd": "2h"}}`, project: `{"sessions": {"idleEnd": "3h"}}`, want: 3 * time.Hour},
		{name: "managed over project", managed: `{"sessions": {"idleEnd": "1h"}}`, project: `{"sessions": {"idleEnd": 0}}`, want: time.Hour},
		{name: "0 never", project: `{"sessions": {"idleEnd": 0}}`, want: 0},
		{name: "user ignored by disableUserHooks", user: `{"sessions": {"idleEnd": "2h"}}`, project: `{"disableUserHooks": true}`, want: 24 * time.Hour},
		{name: "other sessions keys", project: `{"sessions": {"push": true, "remote": "up"}}`, want: 24 * time.Hour},
		{name: "project unparsable", project: `{"sessions": {"idleEnd": 0}`, wantErr: "invalid JSON"},
		{name: "user unparsable", user: `{"sessions"`, project: `{"sessions": {"idleEnd": "3h"}}`, wantErr: "invalid JSON"},
		{name: "not a duration", project: `{"sessions": {"idleEnd": "soon"}}`, wantErr: "sessions"},
		{name: "negative", project: `{"sessions": {"idleEnd": "-1h"}}`, wantErr: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, "{}")
			if tt.project != "" {
				h.writeConfig(h.ws, tt.project)
			}
			if tt.user != "" {
				write(t, filepath.Join(h.r.AutoagentHome, "config.json"), tt.user)
			}
			if tt.managed != "" {
				h.r.ManagedConfig = filepath.Join(t.TempDir(), "managed.json")
				write(t, h.r.ManagedConfig, tt.managed)
			}
			got, err := h.r.IdleLimit(h.ws)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("IdleLimit = %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("IdleLimit = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
