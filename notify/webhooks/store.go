package webhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/atomicfile"
	"github.com/autoagent/agent-hooks/internal/configfile"
	"github.com/autoagent/agent-hooks/internal/httpurl"
)

// StoreFile is the name of the webhooks file in $AUTOAGENT_HOME.
const StoreFile = "webhooks.json"

// StorePath is the webhooks file of an AUTOAGENT_HOME.
func StorePath(autoagentHome string) string { return filepath.Join(autoagentHome, StoreFile) }

// DefaultEvents are the events a webhook set up without --events fires on (the seed's
// session_complete and error).
func DefaultEvents() []string { return []string{hooks.SessionEnd, hooks.Error} }

// Secret is a string that never prints: fmt shows it as "[redacted]"; JSON encoding writes the
// value (it is stored in a file of mode 0600).
type Secret string

// String implements fmt.Stringer.
func (Secret) String() string { return "[redacted]" }

// GoString implements fmt.GoStringer.
func (Secret) GoString() string { return "[redacted]" }

// Entry is one configured webhook. Exactly one of URL and URLEnv is set.
type Entry struct {
	Format string   `json:"format"`           // slack, discord, teams or json
	URL    Secret   `json:"url,omitempty"`    // the webhook URL
	URLEnv string   `json:"urlEnv,omitempty"` // or the environment variable that holds it
	Events []string `json:"events"`           // canonical event names it fires on
	Title  string   `json:"title,omitempty"`  // message template (DefaultTitle when empty)
}

// Resolve returns the entry's URL.
func (e Entry) Resolve(getenv func(string) string) (string, error) {
	if e.URL != "" {
		return string(e.URL), nil
	}
	if e.URLEnv == "" {
		return "", errors.New("no url and no urlEnv")
	}
	if u := getenv(e.URLEnv); u != "" {
		return u, nil
	}
	return "", fmt.Errorf("environment variable %s (its urlEnv) is not set", e.URLEnv)
}

// Store is the content of the webhooks file:
//
//	{"webhooks": {"slack": {"format": "slack", "url": "https://hooks.slack.com/…", "events": ["SessionEnd", "Error"]}}}
type Store struct {
	Webhooks map[string]Entry
	other    map[string]json.RawMessage // top-level keys of newer versions, kept on rewrite
}

// Names lists the configured webhooks, sorted.
func (s *Store) Names() []string {
	names := make([]string, 0, len(s.Webhooks))
	for n := range s.Webhooks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })

// ValidName reports whether name can name a webhook.
func ValidName(name string) bool { return validName().MatchString(name) }

// Validate checks an entry and makes its event names canonical.
func (e *Entry) Validate() error {
	if !ValidFormat(e.Format) {
		return fmt.Errorf("format: unknown format %q (known: %s)", e.Format, strings.Join(Formats(), ", "))
	}
	switch {
	case e.URL != "" && e.URLEnv != "":
		return errors.New("set url or urlEnv, not both")
	case e.URL != "":
		if err := httpurl.Check(string(e.URL)); err != nil {
			return fmt.Errorf("url: %w", err)
		}
	case e.URLEnv == "":
		return errors.New("set url or urlEnv")
	}
	if len(e.Events) == 0 {
		return errors.New("events: list at least one event")
	}
	seen := map[string]bool{}
	events := e.Events[:0:0]
	for _, ev := range e.Events {
		c, err := hooks.ResolveEvent(ev, nil)
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		if !seen[c] {
			seen[c] = true
			events = append(events, c)
		}
	}
	e.Events = events
	return nil
}

// ReadStore reads the webhooks file; a missing file is an empty store.
func ReadStore(path string) (*Store, error) {
	data, err := configfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{Webhooks: map[string]Entry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read webhooks: %w", err)
	}
	s, err := parseStore(data)
	if err != nil {
		return nil, &FileError{File: path, Err: err}
	}
	return s, nil
}

// FileError is a webhooks file that cannot be parsed.
type FileError struct {
	File string
	Err  error // a *PositionError for bad JSON
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

func parseStore(data []byte) (*Store, error) {
	s := &Store{Webhooks: map[string]Entry{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(data, &s.other); err != nil {
		return nil, jsonPosition(data, err)
	}
	if raw, ok := s.other["webhooks"]; ok {
		delete(s.other, "webhooks")
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s.Webhooks); err != nil {
			return nil, fmt.Errorf("webhooks: %w", err)
		}
		if s.Webhooks == nil {
			s.Webhooks = map[string]Entry{}
		}
	}
	return s, nil
}

// PositionError is a JSON syntax error at a line and column of the webhooks file.
type PositionError struct {
	Line, Col int
	Err       error
}

func (e *PositionError) Error() string { return fmt.Sprintf("%d:%d: %v", e.Line, e.Col, e.Err) }
func (e *PositionError) Unwrap() error { return e.Err }

// jsonPosition adds line:column to a JSON syntax error.
func jsonPosition(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	before := data[:min(int(se.Offset), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := max(len(before)-bytes.LastIndexByte(before, '\n')-1, 1) // Offset is just after the bad byte
	return &PositionError{Line: line, Col: col, Err: err}
}

// MarshalJSON writes the store with its entries sorted by name and any unknown keys kept.
func (s *Store) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range s.other {
		out[k] = v
	}
	hooksMap := s.Webhooks
	if hooksMap == nil {
		hooksMap = map[string]Entry{}
	}
	out["webhooks"] = hooksMap
	return json.Marshal(out)
}

// UpdateStore changes the webhooks file under a lock: it reads it, lets fn change it and writes
// it back atomically with mode 0600 (creating its directory with mode 0700). Nothing is written
// when fn fails.
func UpdateStore(path string, fn func(*Store) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return atomicfile.WithLock(path+".lock", func() error {
		s, err := ReadStore(path)
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return fmt.Errorf("encode webhooks: %w", err)
		}
		return atomicfile.WriteFile(path, append(data, '\n'), 0o600)
	})
}
