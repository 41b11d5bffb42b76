package webhooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/autoagent/agent-hooks/hooks"
)

// FormatName is the name the webhooks file goes by as a configuration format.
const FormatName = "webhooks"

// Format makes the webhooks file a configuration format: every entry becomes one `webhook` hook
// on each of its events, with source {webhooks, user, <file>}. The hooks name their entry (the
// "webhook" option), so the URL is read when the hook runs and never appears in the loaded
// configuration.
type Format struct{}

// NewFormat returns the webhooks-file format.
func NewFormat() *Format { return &Format{} }

// Name implements hooks.Format.
func (*Format) Name() string { return FormatName }

// Load implements hooks.Format.
func (*Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	if env.AutoagentHome == "" || env.DisableUserHooks {
		return hooks.Loaded{}, nil
	}
	path := StorePath(env.AutoagentHome)
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return hooks.Loaded{}, nil
	}
	if err != nil {
		return hooks.Loaded{}, fmt.Errorf("stat webhooks file: %w", err)
	}
	var diags []hooks.Diagnostic
	if info.Mode().Perm()&0o077 != 0 {
		diags = append(diags, hooks.Diagnostic{
			Severity: hooks.SeverityWarning, File: path,
			Message: fmt.Sprintf("mode %#o lets other users read webhook URLs (secrets); run chmod 600 %s", info.Mode().Perm(), path),
		})
	}
	store, err := ReadStore(path)
	var fe *FileError
	if errors.As(err, &fe) {
		d := hooks.Diagnostic{Severity: hooks.SeverityError, File: path, Message: fe.Err.Error()}
		var pe *PositionError
		if errors.As(fe.Err, &pe) {
			d.Line, d.Col, d.Message = pe.Line, pe.Col, pe.Err.Error()
		}
		return hooks.Loaded{Diagnostics: append(diags, d)}, nil
	}
	if err != nil {
		return hooks.Loaded{}, err
	}
	var out []*hooks.Hook
	for _, name := range store.Names() {
		e := store.Webhooks[name]
		if err := e.Validate(); err != nil {
			diags = append(diags, hooks.Diagnostic{
				Severity: hooks.SeverityError, File: path,
				Message: fmt.Sprintf("webhook %q: %v", name, err),
			})
			continue
		}
		opts, err := json.Marshal(map[string]string{"webhook": name})
		if err != nil {
			return hooks.Loaded{}, err
		}
		for _, ev := range e.Events {
			out = append(out, &hooks.Hook{
				Name:    "webhook " + name,
				Type:    TypeName,
				Event:   ev,
				Enabled: true,
				Source:  hooks.Source{Format: FormatName, Scope: "user", File: path},
				Options: opts,
			})
		}
	}
	return hooks.Loaded{Hooks: out, Diagnostics: diags}, nil
}
