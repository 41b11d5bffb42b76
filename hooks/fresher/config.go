package fresher

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// ConfigFile is fresher's configuration, relative to the workspace.
var ConfigFile = filepath.Join(".fresher", "config.toml")

// DefaultMode is FRESHER_MODE when neither the payload, the environment nor config.toml sets one.
const DefaultMode = "planning"

// settings are what fresher's hooks depend on in its configuration: Config::load() followed by
// apply_env_overrides (src/config.rs).
type settings struct {
	Enabled bool
	Timeout time.Duration
	Mode    string // [fresher] mode, before FRESHER_MODE
}

// fileConfig is the part of config.toml read here. fresher deserialises the whole file with serde
// and refuses to start when [hooks] or one of its fields is missing or of another type; unknown
// keys are ignored.
type fileConfig struct {
	Fresher struct {
		Mode *string `toml:"mode"`
	} `toml:"fresher"`
	Hooks *struct {
		Enabled *bool   `toml:"enabled"`
		Timeout *uint32 `toml:"timeout"`
	} `toml:"hooks"`
}

// readSettings reads .fresher/config.toml (fresher's defaults without one) and applies the
// environment as fresher does: FRESHER_HOOKS_ENABLED enables only when it lowercases to "true"
// (an empty value reads as unset), FRESHER_HOOK_TIMEOUT overrides when it is a u32 and is
// otherwise ignored, with a warning. A timeout of 0, which makes every hook time out at once in
// fresher, is a warning and 30 s.
func readSettings(env hooks.LoadEnv, getenv func(string) string) (settings, []hooks.Diagnostic, error) {
	s := settings{Enabled: true, Timeout: DefaultTimeout, Mode: DefaultMode}
	file := filepath.Join(env.Workspace, ConfigFile)
	var diags []hooks.Diagnostic
	data, err := configfile.Read(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return s, nil, fmt.Errorf("read fresher config: %w", err)
	default:
		var (
			syntax map[string]any
			fc     fileConfig
		)
		if _, err := toml.Decode(string(data), &syntax); err != nil {
			return s, []hooks.Diagnostic{tomlError(file, "", err)}, nil
		}
		if _, err := toml.Decode(string(data), &fc); err != nil {
			return s, []hooks.Diagnostic{tomlError(file, "type", err)}, nil
		}
		if fc.Hooks == nil || fc.Hooks.Enabled == nil || fc.Hooks.Timeout == nil {
			return s, []hooks.Diagnostic{seedfmt.Errorf(file, 0, 0, "[hooks] needs enabled and timeout: fresher refuses to start without them (fresher init writes enabled = true, timeout = 30)")}, nil
		}
		s.Enabled, s.Timeout = *fc.Hooks.Enabled, time.Duration(*fc.Hooks.Timeout)*time.Second
		if fc.Fresher.Mode != nil {
			s.Mode = *fc.Fresher.Mode
		}
	}
	if v := getenv("FRESHER_HOOKS_ENABLED"); v != "" {
		s.Enabled = strings.ToLower(v) == "true"
	}
	if v := getenv("FRESHER_HOOK_TIMEOUT"); v != "" {
		if n, ok := parseU32(v); ok {
			s.Timeout = time.Duration(n) * time.Second
		} else {
			diags = append(diags, seedfmt.Warning(filepath.Dir(file), 0, 0, "FRESHER_HOOK_TIMEOUT=%q is not a whole number of seconds; fresher ignores it, the timeout stays %s", v, s.Timeout))
		}
	}
	if s.Timeout == 0 {
		diags = append(diags, seedfmt.Warning(filepath.Dir(file), 0, 0, "a hook timeout of 0 makes every fresher hook time out at once; using %s", DefaultTimeout))
		s.Timeout = DefaultTimeout
	}
	return s, diags, nil
}

// parseU32 is Rust's str::parse::<u32>: an optional +, then decimal digits only.
func parseU32(s string) (uint32, bool) {
	digits := strings.TrimPrefix(s, "+")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	return uint32(n), err == nil
}

// tomlTypeError is BurntSushi/toml's decoding error, which names the line but is no ParseError.
var tomlTypeError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`) })

// tomlError is the diagnostic of a config.toml fresher cannot read, at its line (and column):
// invalid TOML, or (kind "type") a value of the wrong type or range.
func tomlError(file, kind string, err error) hooks.Diagnostic {
	line, col, key, msg := 0, 0, "", err.Error()
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line, col, key, msg = pe.Position.Line, pe.Position.Col, pe.LastKey, pe.Message
	} else if m := tomlTypeError().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		col, key, msg = 1, m[2], m[3]
	}
	switch {
	case kind == "":
	case key == "hooks.enabled":
		return seedfmt.Errorf(file, line, col, "[hooks] enabled: expected true or false (fresher refuses to start): %s", msg)
	case key == "hooks.timeout":
		return seedfmt.Errorf(file, line, col, "[hooks] timeout: expected a whole number of seconds from 0 to 4294967295 (fresher refuses to start): %s", msg)
	case kind == "type":
		return seedfmt.Errorf(file, line, col, "%s: %s (fresher refuses to start)", key, msg)
	}
	return seedfmt.Errorf(file, line, col, "invalid TOML (fresher refuses to start): %s", msg)
}
