package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// The defaults of every duration option of the hook types agent-hooks ships: the one table of
// them (README.md, "Durations", lists the same).
const (
	// DefaultTimeout is a hook's "timeout" when it sets none (SPEC.md section 3).
	DefaultTimeout = process.DefaultTimeout
	// DefaultGitHubPollInterval is "pollInterval" of an approval hook with provider github: how
	// often the pull request is read.
	DefaultGitHubPollInterval = 15 * time.Second
	// DefaultHTTPPollInterval is "interval" of an approval hook with provider http-poll.
	DefaultHTTPPollInterval = 30 * time.Second
	// DefaultWebhookBackoff is "backoffMs" of a webhook hook: the wait before the first retry,
	// doubling for each next one.
	DefaultWebhookBackoff = 500 * time.Millisecond
	// DefaultWebhookRequestTimeout is "requestTimeout" of a webhook hook: how long one attempt
	// may take.
	DefaultWebhookRequestTimeout = 10 * time.Second
	// DefaultRemoteConnectTimeout bounds establishing a connection to a git remote (git-push,
	// the sessions on a remote): the TCP connection and the TLS or ssh handshake. It is
	// "sessions.connectTimeout" of config.json.
	DefaultRemoteConnectTimeout = 15 * time.Second
	// DefaultRemoteIdleTimeout bounds every wait on a connected git remote: the longest it may
	// go without sending or taking a byte. It is "sessions.idleTimeout" of config.json.
	DefaultRemoteIdleTimeout = 60 * time.Second
	// DefaultSessionPushTimeout is "sessions.pushTimeout" of config.json: how long the push of
	// "sessions.push" at the end of a session may take in all before the session is left marked
	// to push later, so that ending a session never waits on the network for longer.
	DefaultSessionPushTimeout = 30 * time.Second
	// DefaultSessionIdleEnd is "sessions.idleEnd" of config.json: how long an active session may
	// go without any event before it is ended as interrupted (an agent that never sent
	// SessionEnd). 0 keeps sessions active until they are ended.
	DefaultSessionIdleEnd = 24 * time.Hour
)

// Duration is the type of every duration option: a JSON number is milliseconds (1500, also
// 0.5), a string is a Go duration ("30s", "1m30s", "250ms"). A negative duration, a string that
// is not a duration and any other JSON value are errors; decoded with DecodeOptions, the error
// names the option. Whether zero is allowed is each option's to say.
type Duration time.Duration

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf(`want milliseconds or a duration such as "30s", got %s`, b)
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf(`want milliseconds or a duration such as "30s", got %s`, b)
		}
		if v < 0 {
			return fmt.Errorf("must not be negative, got %s", b)
		}
		*d = Duration(v)
		return nil
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf(`want milliseconds or a duration such as "30s", got %s`, b)
	}
	switch v := ms * float64(time.Millisecond); {
	case ms < 0:
		return fmt.Errorf("must not be negative, got %s", b)
	case v >= math.MaxInt64:
		return fmt.Errorf("too long, got %s", b)
	default:
		*d = Duration(v)
	}
	return nil
}

// RoundDuration is how agent-hooks shows a duration in a message: to the second, or to the
// millisecond below a second.
func RoundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// ParseDuration reads one duration option's JSON value; the error names the option.
func ParseDuration(option string, raw json.RawMessage) (time.Duration, error) {
	var d Duration
	if err := d.UnmarshalJSON(raw); err != nil {
		return 0, fmt.Errorf("%s: %w", option, err)
	}
	return time.Duration(d), nil
}
