package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json    string
		want    time.Duration
		wantErr string
	}{
		{`1500`, 1500 * time.Millisecond, ""},
		{`0`, 0, ""},
		{`0.5`, 500 * time.Microsecond, ""},
		{`1e3`, time.Second, ""},
		{`"30s"`, 30 * time.Second, ""},
		{`"1m30s"`, 90 * time.Second, ""},
		{`"250ms"`, 250 * time.Millisecond, ""},
		{`"0"`, 0, ""},
		{`-1`, 0, "must not be negative, got -1"},
		{`"-5s"`, 0, `must not be negative, got "-5s"`},
		{`"soon"`, 0, `want milliseconds or a duration such as "30s", got "soon"`},
		{`"1500"`, 0, `want milliseconds or a duration such as "30s", got "1500"`}, // a string needs a unit
		{`true`, 0, `want milliseconds or a duration such as "30s", got true`},
		{`{"ms": 1}`, 0, `want milliseconds or a duration such as "30s", got {"ms": 1}`},
		{`1e300`, 0, "too long, got 1e300"},
	}
	for _, tc := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tc.json), &d)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.json, err)
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.wantErr)
		case tc.wantErr == "" && time.Duration(d) != tc.want:
			t.Errorf("%s: %v, want %v", tc.json, time.Duration(d), tc.want)
		}
	}
	// null leaves a value as it is; a pointer stays nil.
	var opts struct {
		A Duration  `json:"a"`
		B *Duration `json:"b"`
	}
	opts.A = Duration(time.Second)
	if err := json.Unmarshal([]byte(`{"a": null, "b": null}`), &opts); err != nil || opts.A != Duration(time.Second) || opts.B != nil {
		t.Errorf("null: %v %+v", err, opts)
	}
}

// TestDecodeOptionsNamesTheOption: a bad duration, a wrong type and an unknown field each name
// the option they are about.
func TestDecodeOptionsNamesTheOption(t *testing.T) {
	t.Parallel()
	type embedded struct {
		Message string `json:"message"`
	}
	type options struct {
		embedded
		Interval *Duration `json:"interval"`
		Backoff  Duration  `json:"backoffMs"`
		Retries  *int      `json:"retries"`
	}
	tests := []struct{ json, want string }{
		{`{"interval": "soon"}`, `interval: want milliseconds or a duration such as "30s", got "soon"`},
		{`{"retries": 1, "backoffMs": -5}`, `backoffMs: must not be negative, got -5`},
		{`{"retries": "3"}`, `retries: want a number, got JSON string`},
		{`{"message": 1}`, `message: want a string, got JSON number`},
		{`{"intervl": 5}`, `unknown field "intervl"; did you mean "interval"?`},
	}
	for _, tc := range tests {
		var o options
		if err := DecodeOptions(json.RawMessage(tc.json), &o); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
	var o options
	if err := DecodeOptions(json.RawMessage(`{"interval": "2s", "backoffMs": 250, "message": "m"}`), &o); err != nil ||
		time.Duration(*o.Interval) != 2*time.Second || time.Duration(o.Backoff) != 250*time.Millisecond || o.Message != "m" {
		t.Errorf("valid options: %v %+v", err, o)
	}
}

// TestHookTimeoutDuration: a hook's timeout is milliseconds or a duration string, and must be
// positive.
func TestHookTimeoutDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		timeout string
		want    time.Duration
		wantErr string
	}{
		{`1500`, 1500 * time.Millisecond, ""},
		{`"2m"`, 2 * time.Minute, ""},
		{`0`, 0, `config.json:1:21: hooks.Stop: timeout: must be positive, got 0`},
		{`"-1s"`, 0, `config.json:1:21: hooks.Stop: timeout: must not be negative, got "-1s"`},
		{`"5 parsecs"`, 0, `config.json:1:21: hooks.Stop: timeout: want milliseconds or a duration such as "30s", got "5 parsecs"`},
	} {
		config := `{"hooks": {"Stop": [{"command": "x", "timeout": ` + tc.timeout + `}]}}`
		cfg, err := Load(NewRegistry(), writeConfig(t, config, ""))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("timeout %s: %v, want %q", tc.timeout, err, tc.wantErr)
			}
			continue
		}
		if err != nil || cfg.Hooks[Stop][0].Timeout != tc.want {
			t.Errorf("timeout %s: %v, %v", tc.timeout, err, cfg)
		}
	}
}
