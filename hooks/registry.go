package hooks

import (
	"fmt"
	"sort"
	"sync"
)

// TypeCommand is the hook type that runs a shell command.
const TypeCommand = "command"

// Registry holds the built-in hook types and the extra configuration formats known to a loader.
type Registry struct {
	mu       sync.RWMutex
	types    map[string]Type
	formats  []Format
	ruleSets map[string][]byte
}

// NewRegistry returns a registry that knows only command hooks and the native format.
func NewRegistry() *Registry { return &Registry{types: map[string]Type{}} }

// Register adds a built-in hook type under name. Registering a name twice panics: it is a wiring bug.
func (r *Registry) Register(name string, t Type) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == TypeCommand || r.types[name] != nil {
		panic(fmt.Sprintf("hooks: type %q registered twice", name))
	}
	r.types[name] = t
}

// RegisterFormat adds a configuration format; formats run after the native config, in the order
// they are registered.
func (r *Registry) RegisterFormat(f Format) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.formats = append(r.formats, f)
}

// Type returns the built-in type registered under name.
func (r *Registry) Type(name string) (Type, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.types[name]
	return t, ok
}

// TypeNames lists every valid hook type, command included, sorted.
func (r *Registry) TypeNames() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := []string{TypeCommand}
	for n := range r.types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Formats returns the registered formats in order.
func (r *Registry) Formats() []Format {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Format(nil), r.formats...)
}
