package runner

import (
	"fmt"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// SessionsConfig is the "sessions" key of config.json.
type SessionsConfig struct {
	// IdleEnd ends an active session that has had no event for this long (default
	// hooks.DefaultSessionIdleEnd; 0 never does): see idle.go.
	IdleEnd *hooks.Duration `json:"idleEnd"`
	// Push pushes the session to the remote when it ends (SessionEnd), as `session push` does.
	Push bool `json:"push"`
	// Remote is the remote sessions are pushed to and read from (default origin).
	Remote string `json:"remote"`
	// ConnectTimeout and IdleTimeout bound every wait on the remote (runner/remote): making
	// the connection, and each wait for the remote to send or take a byte. Defaults:
	// hooks.DefaultRemoteConnectTimeout, hooks.DefaultRemoteIdleTimeout.
	ConnectTimeout *hooks.Duration `json:"connectTimeout"`
	IdleTimeout    *hooks.Duration `json:"idleTimeout"`
	// PushTimeout bounds the push of Push at the end of a session in all (default
	// hooks.DefaultSessionPushTimeout): past it the session ends unpushed, marked to push later.
	PushTimeout *hooks.Duration `json:"pushTimeout"`
}

// ReadSessionsConfig reads the "sessions" sections of the configuration: the user's, then the
// project's over it, key by key. A duration must be positive (idleEnd may be 0: never).
func ReadSessionsConfig(cfg *hooks.Config) (SessionsConfig, error) {
	if cfg == nil {
		return SessionsConfig{}, nil
	}
	return decodeSessionsConfig(cfg.Sections["sessions"])
}

// decodeSessionsConfig is ReadSessionsConfig of the "sessions" sections secs, in run order.
func decodeSessionsConfig(secs []hooks.Section) (SessionsConfig, error) {
	var c SessionsConfig
	if err := decodeSectionList(secs, "sessions", &c); err != nil {
		return c, err
	}
	for _, d := range []struct {
		key string
		v   *hooks.Duration
	}{{"connectTimeout", c.ConnectTimeout}, {"idleTimeout", c.IdleTimeout}, {"pushTimeout", c.PushTimeout}} {
		if d.v != nil && *d.v <= 0 {
			return c, fmt.Errorf("sessions.%s: must be positive, got %s", d.key, time.Duration(*d.v))
		}
	}
	return c, nil
}

// decodeSections decodes every section named key into v, the later files (user) first so that
// the project's keys win; an unknown key or a wrong value is an error naming the file and
// line:column and the key.
func decodeSections(cfg *hooks.Config, key string, v any) error {
	if cfg == nil {
		return nil
	}
	return decodeSectionList(cfg.Sections[key], key, v)
}

// decodeSectionList is decodeSections of the sections secs of key, in run order.
func decodeSectionList(secs []hooks.Section, key string, v any) error {
	for i := len(secs) - 1; i >= 0; i-- {
		s := secs[i]
		if err := hooks.DecodeOptions(s.Value, v); err != nil {
			return fmt.Errorf("%s:%d:%d: %s: %v", s.File, s.Line, s.Col, key, err)
		}
	}
	return nil
}
