package seedfmt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
)

// Point is a format's name for a hook point and the canonical event it runs on.
type Point struct{ Name, Event string }

// Points are a format's hook points in the order its document lists them.
type Points []Point

// Names lists the points' names.
func (ps Points) Names() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// Event is the canonical event of the point called name.
func (ps Points) Event(name string) (string, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p.Event, true
		}
	}
	return "", false
}

// YAMLFile collects the diagnostics of one YAML configuration file, positioned at its nodes.
type YAMLFile struct {
	Path  string
	Diags []hooks.Diagnostic
}

// Errorf records an error at node n.
func (f *YAMLFile) Errorf(n *yaml.Node, format string, args ...any) {
	f.Diags = append(f.Diags, Errorf(f.Path, n.Line, n.Column, format, args...))
}

// Warnf records a warning at node n.
func (f *YAMLFile) Warnf(n *yaml.Node, format string, args ...any) {
	f.Diags = append(f.Diags, Warning(f.Path, n.Line, n.Column, format, args...))
}

// Parse returns the root node of data; nil for an empty document, or for invalid YAML, which it
// records as an error with its line.
func (f *YAMLFile) Parse(data []byte) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		f.Diags = append(f.Diags, YAMLError(f.Path, err))
		return nil
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// Mapping calls fn with each key and value of n. A null node is an empty mapping; any other
// non-mapping is recorded as an error saying what was expected. A key that repeats one before it
// is recorded as an error and not passed to fn: yaml.v3 keeps both in a node, and which one a
// reader uses differs from reader to reader.
func (f *YAMLFile) Mapping(n *yaml.Node, expected string, fn func(k, v *yaml.Node)) {
	if IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		f.Errorf(n, "%s", expected)
		return
	}
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind == yaml.ScalarNode {
			if first, dup := seen[k.Value]; dup {
				f.Errorf(k, "duplicate key %q (first at %d:%d)", k.Value, first.Line, first.Column)
				continue
			}
			seen[k.Value] = k
		}
		fn(k, n.Content[i+1])
	}
}

// IsNull reports whether n is an explicit or empty null.
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// UnknownKey describes a key that is not one of known, suggesting the nearest.
func UnknownKey(what, key string, known []string) string {
	msg := fmt.Sprintf("unknown %s %q", what, key)
	if s := hooks.Suggest(key, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// YAMLError turns a gopkg.in/yaml.v3 syntax error into a diagnostic with its line. yaml.v3 counts
// lines in two ways: a scanner error names the 1-based line of the problem, a parser error ("did
// not find expected …") the 0-based line where the enclosing construct began, and an error on the
// first line names none. The diagnostic gives 1-based lines throughout.
func YAMLError(file string, err error) hooks.Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if strings.HasPrefix(msg, "did not find expected") {
			line++
		}
	}
	return Errorf(file, line, 1, "invalid YAML: %s", msg)
}
