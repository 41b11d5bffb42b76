// Package secrets tells whether a file about to be committed or pushed looks like it holds a
// secret: by its name (dotenv files, private key and credential files: names.toml) or by its
// content (well-known token formats: a subset of gitleaks' rules, gitleaks.toml). The rules are
// maintained detectors' own, vendored with their licences; see the headers of the two files.
//
// Content rules are applied as gitleaks applies them (its v8 detect.Detector): the lowercased
// content is searched for each rule's keywords first, and only the rules with a keyword present
// run their regular expression; a match yields the rule's secretGroup (else its first non-empty
// group), which must pass the rule's entropy threshold and neither the global nor the rule's
// allowlists (paths, regexes against the secret, the match or the line, stopwords; "AND"
// conditions). Unlike gitleaks, a `gitleaks:allow` comment in the file allows nothing (the file's
// author may be the agent the check is for), and encoded (base64, hex, percent) segments are not
// decoded and scanned again.
//
// A rule's expression is compiled on first use (most never run in a process: its files hold none
// of their keywords), and run as gitleaks runs it, over the whole content, but where every match
// of it begins with one of a few literals (ghp_, AKIA, -----BEGIN, after an optional \b), only at
// the occurrences of those literals, anchored there: the same matches, found without running Go's
// regexp (which has no faster path for an expression that begins with \b or (?i)) over every
// byte.
package secrets

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/autoagent/agent-hooks/gitops/internal/ignore"
)

// MaxContent is the size from which a file's content is not scanned: only its name is checked.
const MaxContent = 1 << 20

// binarySniff is how far into a file a NUL byte makes it binary, as git decides.
const binarySniff = 8000

var (
	//go:embed gitleaks.toml
	gitleaksTOML []byte
	//go:embed names.toml
	namesTOML []byte
)

// Finding is a file that looks like it holds a secret, and the rule that says so.
type Finding struct {
	Path        string // as given to the check: slash-separated, relative to the repository's top
	Rule        string // the rule's id: "dotenv", "github-pat", "PemFile", …
	Source      string // whose rule: "gitleaks", "github/gitignore" or "talisman"
	Description string
	Line        int // the 1-based line of a content match; 0 for a rule on the file's name
}

// Reason says what was found, for a warning or a refusal: "rule github-pat (gitleaks) on line 3".
func (f Finding) Reason() string {
	s := fmt.Sprintf("rule %s (%s)", f.Rule, f.Source)
	if f.Line > 0 {
		s += fmt.Sprintf(" on line %d", f.Line)
	}
	return s
}

// Detector holds the compiled rules. It is safe for concurrent use.
type Detector struct {
	global   allowlist
	rules    []*rule
	always   []int // rules without keywords: run on every file
	kw       *keywords
	dotenv   nameRule
	dotenvPs []gitignore.Pattern
	names    []nameRule
}

type nameRule struct {
	id, description, source string
	re                      *regexp.Regexp // against the base name (Talisman's)
}

type rule struct {
	id, description string
	expr            string // the regular expression, "" for a rule on the path only
	path            *regexp.Regexp
	secretGroup     int
	entropy         float64
	allowlists      []allowlist

	// starts are literals one of which every match begins with (ASCII case-insensitively with
	// fold), after a \b when boundary; at is re anchored at the start of a text. Nil when the
	// expression has no such literals.
	starts   [][]byte
	fold     bool
	boundary bool
	at       *regexp.Regexp

	once sync.Once // compile
	re   *regexp.Regexp
	err  error
}

type allowlist struct {
	and       bool   // condition "AND": every check given must hold
	target    string // what regexes apply to: "" (the secret), "match" or "line"
	paths     []*regexp.Regexp
	regexes   []*regexp.Regexp
	stopwords []string // lowercase
}

// The TOML shapes, as gitleaks' config package reads them (its ViperConfig).
type (
	gitleaksFile struct {
		Title      string
		MinVersion string `toml:"minVersion"`
		Allowlist  *allowlistTOML
		Rules      []ruleTOML
	}
	ruleTOML struct {
		ID          string
		Description string
		Regex       string
		SecretGroup int `toml:"secretGroup"`
		Entropy     float64
		Keywords    []string
		Path        string
		Allowlists  []allowlistTOML
	}
	allowlistTOML struct {
		Description string
		Condition   string
		RegexTarget string `toml:"regexTarget"`
		Paths       []string
		Regexes     []string
		StopWords   []string
	}
	namesFile struct {
		Dotenv struct {
			ID, Description string
			Patterns        []string
		}
		Talisman []struct{ ID, Pattern string }
	}
)

// Default is the detector of the vendored rules, read and compiled on first use.
var Default = sync.OnceValues(func() (*Detector, error) { return Parse(gitleaksTOML, namesTOML) })

// Parse compiles a gitleaks configuration and a names file (in the shapes of the vendored ones).
// A key it does not know is an error: a rule must not be read as less than it says.
func Parse(gitleaksConf, names []byte) (*Detector, error) {
	var gf gitleaksFile
	md, err := toml.Decode(string(gitleaksConf), &gf)
	if err != nil {
		return nil, fmt.Errorf("gitleaks rules: %w", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("gitleaks rules: unsupported keys %v", u)
	}
	d := &Detector{}
	if gf.Allowlist != nil {
		if d.global, err = compileAllowlist(*gf.Allowlist); err != nil {
			return nil, fmt.Errorf("gitleaks rules: global allowlist: %w", err)
		}
	}
	var kws [][]string
	for _, r := range gf.Rules {
		c, err := compileRule(r)
		if err != nil {
			return nil, fmt.Errorf("gitleaks rules: rule %q: %w", r.ID, err)
		}
		if len(r.Keywords) == 0 {
			d.always = append(d.always, len(d.rules))
		}
		d.rules = append(d.rules, c)
		kws = append(kws, r.Keywords)
	}
	if d.kw, err = newKeywords(kws); err != nil {
		return nil, fmt.Errorf("gitleaks rules: %w", err)
	}
	var nf namesFile
	if md, err = toml.Decode(string(names), &nf); err != nil {
		return nil, fmt.Errorf("file name rules: %w", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("file name rules: unsupported keys %v", u)
	}
	d.dotenv = nameRule{id: nf.Dotenv.ID, description: nf.Dotenv.Description, source: "github/gitignore"}
	for _, p := range nf.Dotenv.Patterns {
		if strings.Contains(strings.TrimPrefix(p, "/"), "/") {
			return nil, fmt.Errorf("file name rules: dotenv pattern %q: want a name", p)
		}
		if r := ignore.ParseRule(p, nil); r != nil {
			d.dotenvPs = append(d.dotenvPs, r)
		}
	}
	for _, t := range nf.Talisman {
		re, err := regexp.Compile(t.Pattern)
		if err != nil {
			return nil, fmt.Errorf("file name rules: %s: %w", t.ID, err)
		}
		d.names = append(d.names, nameRule{id: t.ID, description: "file name " + t.Pattern, source: "talisman", re: re})
	}
	return d, nil
}

func compileRule(r ruleTOML) (*rule, error) {
	c := &rule{id: r.ID, description: r.Description, expr: r.Regex, secretGroup: r.SecretGroup, entropy: r.Entropy}
	if r.ID == "" {
		return nil, errors.New("no id")
	}
	if r.Path != "" {
		var err error
		if c.path, err = regexp.Compile(r.Path); err != nil {
			return nil, err
		}
	}
	if c.expr == "" && c.path == nil {
		return nil, errors.New("neither regex nor path")
	}
	for i, a := range r.Allowlists {
		al, err := compileAllowlist(a)
		if err != nil {
			return nil, fmt.Errorf("allowlist %d: %w", i+1, err)
		}
		c.allowlists = append(c.allowlists, al)
	}
	return c, nil
}

// compile compiles the rule's expression, once, on first use: most rules never run in a
// process, whose files hold none of their keywords.
func (c *rule) compile() error {
	c.once.Do(func() {
		if c.re, c.err = regexp.Compile(c.expr); c.err != nil {
			return
		}
		if n := c.re.NumSubexp(); c.secretGroup > n {
			c.err = fmt.Errorf("secretGroup %d: the regex has %d groups", c.secretGroup, n)
			return
		}
		c.err = c.anchor(c.expr)
	})
	return c.err
}

// anchor finds the literals every match of expr begins with, and compiles expr anchored.
func (c *rule) anchor(expr string) error {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return err
	}
	tree = tree.Simplify()
	if hasBeginAnchor(tree) {
		return nil // ^ would mean the start of the text it is anchored in
	}
	starts, fold, boundary, ok := startLiterals(tree)
	if !ok {
		return nil
	}
	if boundary {
		// The \b is checked against the byte before a literal; it holds there only if the
		// literal begins with a word character (and the byte before is none).
		for _, s := range starts {
			if !isWord(s[0]) {
				return nil
			}
		}
	}
	if c.at, err = regexp.Compile(`^(?:` + expr + `)`); err != nil {
		return err
	}
	c.fold, c.boundary = fold, boundary
	for _, s := range starts {
		if fold {
			s = strings.ToLower(s)
		}
		c.starts = append(c.starts, []byte(s))
	}
	return nil
}

// startLiterals are the literals one of which every match of re begins with: a literal, a
// capture or concatenation beginning with one, an alternation of them; after a leading \b
// (boundary). fold: they are case-insensitive; ok false when re begins with anything else.
func startLiterals(re *syntax.Regexp) (starts []string, fold, boundary, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, re.Flags&syntax.FoldCase != 0, false, len(re.Rune) > 0 && isASCII(re.Rune)
	case syntax.OpCapture:
		return startLiterals(re.Sub[0])
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil, false, false, false
		}
		if re.Sub[0].Op == syntax.OpWordBoundary {
			rest := &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}
			starts, fold, b, ok := startLiterals(rest)
			return starts, fold, true, ok && !b
		}
		return startLiterals(re.Sub[0])
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			s, f, b, ok := startLiterals(sub)
			if !ok || b || i > 0 && f != fold {
				return nil, false, false, false
			}
			starts, fold = append(starts, s...), f
		}
		return starts, fold, false, true
	}
	return nil, false, false, false
}

// hasBeginAnchor reports whether re holds ^ or \A.
func hasBeginAnchor(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginLine || re.Op == syntax.OpBeginText {
		return true
	}
	for _, sub := range re.Sub {
		if hasBeginAnchor(sub) {
			return true
		}
	}
	return false
}

func isASCII(rs []rune) bool {
	for _, r := range rs {
		if r >= 0x80 {
			return false
		}
	}
	return true
}

// isWord is \b's word character.
func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func compileAllowlist(a allowlistTOML) (allowlist, error) {
	al := allowlist{target: a.RegexTarget}
	switch strings.ToUpper(a.Condition) {
	case "", "OR":
	case "AND", "&&":
		al.and = true
	default:
		return al, fmt.Errorf("condition %q", a.Condition)
	}
	switch a.RegexTarget {
	case "", "secret", "match", "line":
	default:
		return al, fmt.Errorf("regexTarget %q", a.RegexTarget)
	}
	for _, p := range a.Paths {
		re, err := regexp.Compile(p)
		if err != nil {
			return al, err
		}
		al.paths = append(al.paths, re)
	}
	for _, p := range a.Regexes {
		re, err := regexp.Compile(p)
		if err != nil {
			return al, err
		}
		al.regexes = append(al.regexes, re)
	}
	for _, w := range a.StopWords {
		al.stopwords = append(al.stopwords, strings.ToLower(w))
	}
	if len(al.paths)+len(al.regexes)+len(al.stopwords) == 0 {
		return al, errors.New("no paths, regexes or stopwords")
	}
	return al, nil
}

// Check looks at a file about to be committed: its name, then, unless content is nil, of
// MaxContent bytes or more, or binary, its content. p is slash-separated, relative to the top of the
// repository.
func (d *Detector) Check(p string, content []byte) (Finding, bool) {
	if f, ok := d.Name(p); ok {
		return f, true
	}
	if content == nil {
		return Finding{}, false
	}
	return d.Content(p, content)
}

// Name applies the rules that look at a path only.
func (d *Detector) Name(p string) (Finding, bool) {
	if len(d.dotenvPs) > 0 && ignore.Ignored(d.dotenvPs, path.Base(p), false) {
		return Finding{Path: p, Rule: d.dotenv.id, Source: d.dotenv.source, Description: d.dotenv.description}, true
	}
	base := path.Base(p)
	for _, n := range d.names {
		if n.re.MatchString(base) {
			return Finding{Path: p, Rule: n.id, Source: n.source, Description: n.description}, true
		}
	}
	if d.global.pathAllowed(p) {
		return Finding{}, false
	}
	for _, r := range d.rules {
		if r.expr == "" && r.path.MatchString(p) && !r.pathAllowed(p) {
			return Finding{Path: p, Rule: r.id, Source: "gitleaks", Description: r.description}, true
		}
	}
	return Finding{}, false
}

// Binary reports whether content is binary as git decides it: a NUL byte in its first 8000 bytes.
func Binary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binarySniff)], 0) >= 0
}

// Content applies the content rules to the content of the file at p (not when it has MaxContent
// bytes or more, or is binary).
func (d *Detector) Content(p string, content []byte) (Finding, bool) {
	if len(content) >= MaxContent || Binary(content) || d.global.pathAllowed(p) {
		return Finding{}, false
	}
	// A rune that (?i) matches to an ASCII letter is rare, and lowercased to it by gitleaks'
	// prefilter: then the keywords are searched for as gitleaks does, and the case-insensitive
	// rules run over the whole content.
	otherFold := foldsToASCII(content)
	var run []bool
	if otherFold {
		run = d.kw.rules(bytes.ToLower(content))
	} else {
		run = d.kw.rules(content)
	}
	for _, i := range d.always {
		run[i] = true
	}
	// content with ASCII letters in lower case (the same length: offsets into it are offsets
	// into content), made for the first case-insensitive rule that needs it.
	var folded []byte
	for i, ok := range run {
		if !ok {
			continue
		}
		r := d.rules[i]
		if r.expr == "" || r.pathAllowed(p) || r.path != nil && !r.path.MatchString(p) {
			continue
		}
		if err := r.compile(); err != nil {
			// Fail closed: a rule that cannot run cannot clear the file.
			return Finding{Path: p, Rule: r.id, Source: "gitleaks", Description: "the rule does not compile: " + err.Error()}, true
		}
		if r.fold && r.at != nil && !otherFold && folded == nil {
			folded = asciiLower(content)
		}
		var matches [][]int
		switch {
		case r.at == nil, r.fold && otherFold:
			matches = r.re.FindAllIndex(content, -1)
		case r.fold:
			matches = r.findAll(content, folded)
		default:
			matches = r.findAll(content, content)
		}
		if f, ok := d.finding(r, p, content, matches); ok {
			return f, true
		}
	}
	return Finding{}, false
}

// asciiLower is b with its ASCII letters in lower case and every other byte as it is. Unlike
// bytes.ToLower it keeps the length (which an invalid byte, or İ, would change), so that an offset
// into it is the same offset into b.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// foldsToASCII reports whether b holds one of the two runes that a case-insensitive Go regexp
// matches to an ASCII letter (their simple case folding: K KELVIN SIGN to k, ſ LONG S to s),
// which asciiLower leaves as they are.
func foldsToASCII(b []byte) bool {
	return bytes.Contains(b, []byte("\u212a")) || bytes.Contains(b, []byte("\u017f"))
}

// findAll is r.re.FindAllIndex(content, -1) for a rule with start literals: r.at tried at each
// of their occurrences in in (content, or content in lower case for a case-insensitive rule), in
// order, past the end of the previous match.
func (r *rule) findAll(content, in []byte) [][]int {
	var cands []int
	for _, s := range r.starts {
		for off := 0; ; {
			i := bytes.Index(in[off:], s)
			if i < 0 {
				break
			}
			cands = append(cands, off+i)
			off += i + 1
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.Sort(cands)
	var out [][]int
	end := 0
	for _, k := range cands {
		if k < end || r.boundary && k > 0 && isWord(content[k-1]) {
			continue
		}
		if m := r.at.FindIndex(content[k:]); m != nil {
			out = append(out, []int{k, k + m[1]})
			end = max(k+m[1], k+1)
		}
	}
	return out
}

// finding is the first of a rule's matches in content that gitleaks reports: the secret (the
// rule's secretGroup, else its first non-empty group, else the match) passes the entropy
// threshold and no allowlist allows it (gitleaks' detectRule).
func (d *Detector) finding(r *rule, p string, content []byte, matches [][]int) (Finding, bool) {
	for _, m := range matches {
		match := string(bytes.Trim(content[m[0]:m[1]], "\n"))
		end := m[0] + len(match)
		secret := match
		if groups := r.re.FindStringSubmatch(match); len(groups) >= 2 {
			if r.secretGroup > 0 {
				secret = groups[r.secretGroup]
			} else {
				for _, g := range groups[1:] {
					if g != "" {
						secret = g
						break
					}
				}
			}
		}
		if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
			continue
		}
		lineStart := bytes.LastIndexByte(content[:m[0]], '\n') + 1
		lineEnd := len(content)
		if i := bytes.IndexByte(content[end:], '\n'); i >= 0 {
			lineEnd = end + i
		}
		line := string(content[lineStart:lineEnd])
		if d.global.findingAllowed(p, secret, match, line) || r.findingAllowed(p, secret, match, line) {
			continue
		}
		return Finding{Path: p, Rule: r.id, Source: "gitleaks", Description: r.description,
			Line: bytes.Count(content[:m[0]], []byte("\n")) + 1}, true
	}
	return Finding{}, false
}

// pathAllowed reports whether one of the rule's allowlists allows every finding in the file p
// (gitleaks' checkCommitOrPathAllowed without commits).
func (r *rule) pathAllowed(p string) bool {
	for i := range r.allowlists {
		if r.allowlists[i].pathAllowed(p) {
			return true
		}
	}
	return false
}

func (r *rule) findingAllowed(p, secret, match, line string) bool {
	for i := range r.allowlists {
		if r.allowlists[i].findingAllowed(p, secret, match, line) {
			return true
		}
	}
	return false
}

// pathAllowed: the allowlist's paths allow the file, and (AND) it has no regexes or stopwords to
// check on a finding.
func (a *allowlist) pathAllowed(p string) bool {
	if len(a.paths) == 0 || !anyMatch(a.paths, p) {
		return false
	}
	return !a.and || len(a.regexes) == 0 && len(a.stopwords) == 0
}

// findingAllowed is gitleaks' checkFindingAllowed: with OR, a regex or a stopword allows the
// finding; with AND, every check the allowlist gives (paths, regexes, stopwords) must hold.
func (a *allowlist) findingAllowed(p, secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	regexOK := target != "" && anyMatch(a.regexes, target)
	stopOK := a.hasStopword(secret)
	if !a.and {
		return regexOK || stopOK
	}
	checks := 0
	if len(a.paths) > 0 {
		checks++
		if !anyMatch(a.paths, p) {
			return false
		}
	}
	if len(a.regexes) > 0 {
		checks++
		if !regexOK {
			return false
		}
	}
	if len(a.stopwords) > 0 {
		checks++
		if !stopOK {
			return false
		}
	}
	return checks > 0
}

func (a *allowlist) hasStopword(secret string) bool {
	if len(a.stopwords) == 0 || secret == "" {
		return false
	}
	s := strings.ToLower(secret)
	for _, w := range a.stopwords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' measure, rune counts over the length in bytes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	var e float64
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
