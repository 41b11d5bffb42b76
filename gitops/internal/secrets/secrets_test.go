package secrets

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// token is a made-up credential of a well-known format: prefix, then n characters drawn from
// alphabet by a fixed seed. Tests build tokens at run time, so that no file of this repository
// holds one for a secret scanner to find.
func token(prefix, alphabet string, n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed))
	b := []byte(prefix)
	for range n {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	base32  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	lowerAN = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// TestVendoredRulesParse: the vendored files parse, every regular expression compiles (Go's
// regexp, which gitleaks itself uses), and the subset is what gitleaks.toml's header says.
func TestVendoredRulesParse(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(d.rules), bytes.Count(gitleaksTOML, []byte("\n[[rules]]\n")); got != want || got != 119 {
		t.Errorf("%d rules compiled, the file has %d blocks; its header says 119", got, want)
	}
	context := regexp.MustCompile(`^(?:\(\?i\))?\[\\w\.-\]\{0,50\}\?\(\?:`)
	ids := map[string]bool{}
	for _, r := range d.rules {
		if r.expr != "" {
			if err := r.compile(); err != nil {
				t.Errorf("rule %s: %v", r.id, err)
				continue
			}
		}
		if ids[r.id] {
			t.Errorf("rule %s twice", r.id)
		}
		ids[r.id] = true
		if r.re != nil && context.MatchString(r.re.String()) {
			t.Errorf("rule %s guesses from a service's name (%s): not in the subset", r.id, r.re)
		}
	}
	for _, id := range []string{"github-pat", "aws-access-token", "private-key", "pkcs12-file", "openai-api-key", "slack-bot-token"} {
		if !ids[id] {
			t.Errorf("rule %s missing", id)
		}
	}
	for _, id := range []string{"generic-api-key", "curl-auth-user", "adafruit-api-key"} {
		if ids[id] {
			t.Errorf("rule %s should have been left out", id)
		}
	}
	if len(d.always) != 1 || d.rules[d.always[0]].id != "pkcs12-file" {
		t.Errorf("rules without keywords: %v, want only pkcs12-file (path only)", d.always)
	}
	if len(d.names) != bytes.Count(namesTOML, []byte("\n[[talisman]]\n")) || len(d.dotenvPs) != 3 {
		t.Errorf("%d name rules, %d dotenv patterns", len(d.names), len(d.dotenvPs))
	}
}

// TestParseRefuses: a key the detector does not implement is an error, not a rule read as less
// than it says; so are bad regular expressions and one-byte keywords (the prefilter's table).
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, conf, want string }{
		{"unknown key", "[[rules]]\nid = \"x\"\nregex = 'a'\nkeywords = [\"ab\"]\ntags = [\"t\"]\n", "unsupported keys"},
		{"bad path", "[[rules]]\nid = \"x\"\npath = '(a'\n", "missing closing )"},
		{"short keyword", "[[rules]]\nid = \"x\"\nregex = 'a'\nkeywords = [\"a\"]\n", "want at least 2 bytes"},
		{"empty allowlist", "[[rules]]\nid = \"x\"\nregex = 'a'\nkeywords = [\"ab\"]\n[[rules.allowlists]]\ndescription = \"d\"\n", "no paths, regexes or stopwords"},
		{"no regex", "[[rules]]\nid = \"x\"\n", "neither regex nor path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.conf), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, rule string }{
		{".env", "dotenv"},
		{".env.local", "dotenv"},
		{"config/.env.production", "dotenv"},
		{".env.example", ""},
		{"web/.env.example", ""},
		{".envrc", ""},
		{"environment.ts", ""},
		{"src/env.go", ""},
		{"id_rsa", "RSAFile"},
		{".ssh/id_ed25519", "DSAFile"},
		{"id_rsa.pub", ""},
		{"id_ed25519.pub", ""},
		{"certs/server.pem", "PemFile"},
		{"tls/server.key", "KeyPairFile"},
		{"android/release.keystore", "KeyStoreFile"},
		{"a.p12", "P12File"},
		{"A.P12", "pkcs12-file"}, // Talisman's patterns are case-sensitive, gitleaks' is not
		{"cert.pfx", "PFXFile"},
		{".netrc", "NetrcFile"},
		{"htpasswd", "HTPASSWDFile"},
		{"jenkins/credentials.xml", "CredentialsXML"},
		{"private_key_test.go", ""},
		{"oauth_token.py", ""},
		{"README.md", ""},
		{"keys.md", ""},
	} {
		f, ok := d.Name(tc.path)
		if got := f.Rule; got != tc.rule || ok != (tc.rule != "") {
			t.Errorf("Name(%q) = %q, %v; want %q", tc.path, got, ok, tc.rule)
		}
	}
}

func TestContent(t *testing.T) {
	t.Parallel()
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	ghp := token("gh"+"p_", alnum, 36, 1)
	akia := token("AK"+"IA", base32, 16, 2)
	key := "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + token("", alnum, 70, 3) + "\n" + token("", alnum, 70, 4) +
		"\n-----END OPENSSH " + "PRIVATE KEY-----\n"
	clojars := token("CLOJARS_", lowerAN, 60, 5)
	for _, tc := range []struct {
		name, path, content string
		rule                string
		line                int
	}{
		{"github token", "main.go", "package main\n\nconst token = \"" + ghp + "\"\n", "github-pat", 3},
		{"at the very end", "a.txt", "x=" + ghp, "github-pat", 1},
		{"aws key id", "deploy.sh", "export AWS_ACCESS_KEY_ID=" + akia + "\n", "aws-access-token", 1},
		{"aws documentation example", "deploy.sh", "export AWS_ACCESS_KEY_ID=AK" + "IAIOSFODNN7EXAMPLE\n", "", 0},
		{"private key", "deploy/key.txt", "# the deploy key\n" + key, "private-key", 2},
		// Lowercasing changes the length of these (an invalid byte becomes U+FFFD, İ three bytes):
		// a case-insensitive rule's matches are still found where they are.
		{"private key after latin-1", "deploy/key.txt", "# cl\xe9 \xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\n" + key, "private-key", 2},
		{"private key after a dotted capital I", "deploy/key.txt", "# \u0130\u0130\u0130\u0130\u0130\u0130\u0130\u0130\n" + key, "private-key", 2},
		// (?i) matches K (Kelvin) to k, and gitleaks' prefilter lowercases it to k.
		{"private key with a Kelvin sign", "deploy/key.txt", strings.Replace(key, "KEY-----\n", "\u212aEY-----\n", 1), "private-key", 1},
		{"keyword in upper case", "project.clj", "(def token \"" + clojars + "\")\n", "clojars-api-token", 1},
		{"keyword in lower case", "project.clj", "(def token \"" + strings.ToLower(clojars) + "\")\n", "clojars-api-token", 1},
		{"low entropy", "a.txt", "gh" + "p_" + strings.Repeat("a", 36) + "\n", "", 0},
		{"gitleaks:allow allows nothing", "a.txt", "t = \"" + ghp + "\" # gitleaks:allow\n", "github-pat", 1},
		{"global allowlist path", "node_modules/pkg/index.js", "t = \"" + ghp + "\"\n", "", 0},
		{"global allowlist path go.sum", "go.sum", ghp + "\n", "", 0},
		{"binary", "a.bin.dat", "\x00\x01" + ghp, "", 0},
		{"too large", "big.txt", ghp + "\n" + strings.Repeat("x", MaxContent), "", 0},
		{"no secret", "main.go", "package main\n\nfunc main() { println(\"skip it\") }\n", "", 0},
		// vault-service-token's own allowlist: s.<24 letters> is a word, not a token.
		{"rule allowlist", "a.txt", "see s.abcdefghijklmnopqrstuvwx\n", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := d.Content(tc.path, []byte(tc.content))
			if f.Rule != tc.rule || ok != (tc.rule != "") || f.Line != tc.line {
				t.Errorf("Content = %+v, %v; want rule %q on line %d", f, ok, tc.rule, tc.line)
			}
			if ok && (f.Path != tc.path || f.Source != "gitleaks" || f.Description == "") {
				t.Errorf("finding %+v", f)
			}
		})
	}
}

// TestFoldsToASCII: the runes foldsToASCII looks for are all those that Go's case-insensitive
// matching takes to an ASCII letter (asciiLower leaves every other rune's bytes alone, and no
// other rune matches an ASCII letter under (?i)).
func TestFoldsToASCII(t *testing.T) {
	t.Parallel()
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		ascii := false
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 {
				ascii = true
			}
		}
		if got := foldsToASCII([]byte(string(r))); got != ascii {
			t.Errorf("foldsToASCII(%U) = %v, want %v", r, got, ascii)
		}
	}
}

// TestKeywordsAreGitleaksPrefilter: the one-pass keyword search finds, for every rule, what
// gitleaks' prefilter finds (a keyword in the lowercased content), over random texts made of the
// keywords' own bytes, so that keywords overlap, repeat, and start at the very ends.
func TestKeywordsAreGitleaksPrefilter(t *testing.T) {
	t.Parallel()
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	var kws [][]string
	var words []string
	for _, block := range strings.Split(string(gitleaksTOML), "\n[[rules]]\n")[1:] {
		var list []string
		if m := regexp.MustCompile(`(?s)\nkeywords = \[(.*?)\]`).FindStringSubmatch(block); m != nil {
			for _, q := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
				list = append(list, q[1])
				words = append(words, q[1])
			}
		}
		kws = append(kws, list)
	}
	if len(kws) != len(d.rules) {
		t.Fatalf("%d keyword lists for %d rules", len(kws), len(d.rules))
	}
	r := rand.New(rand.NewPCG(7, 7))
	for n := range 3000 {
		var b strings.Builder
		for range r.IntN(12) {
			switch w := words[r.IntN(len(words))]; r.IntN(4) {
			case 0:
				b.WriteString(strings.ToUpper(w))
			case 1:
				b.WriteString(w[:r.IntN(len(w))]) // a prefix that is no keyword
			default:
				b.WriteString(w)
			}
			if r.IntN(3) == 0 {
				b.WriteByte(" \n_.-aZ"[r.IntN(7)])
			}
		}
		content := b.String()
		got := d.kw.rules([]byte(content))
		low := strings.ToLower(content)
		for i, list := range kws {
			want := false
			for _, w := range list {
				want = want || strings.Contains(low, strings.ToLower(w))
			}
			if got[i] != want {
				t.Fatalf("text %d %q: rule %s (keywords %q): got %v, want %v", n, content, d.rules[i].id, list, got[i], want)
			}
		}
	}
}

// BenchmarkContent scans this module's Go sources (which hold no secret: every rule runs to the
// end of its keywords' files), reporting the throughput.
func BenchmarkContent(b *testing.B) {
	d, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	var total int64
	for _, pattern := range []string{"../../*.go", "../*/*.go"} {
		names, _ := filepath.Glob(pattern)
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, data)
			total += int64(len(data))
		}
	}
	b.SetBytes(total)
	b.ReportMetric(float64(len(files)), "files/op")
	for b.Loop() {
		for _, f := range files {
			d.Content("x.go", f)
		}
	}
}

// BenchmarkDefault is the cost of reading and compiling the rules, paid once by a process that
// commits or pushes.
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		if _, err := Parse(gitleaksTOML, namesTOML); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAnchoredIsFindAll: for every rule whose matches begin with literals, trying the anchored
// expression at their occurrences finds exactly the matches of the expression over the whole
// content, over random texts of the literals, tokens made of them and the characters around them.
func TestAnchoredIsFindAll(t *testing.T) {
	t.Parallel()
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 11))
	anchored, matched := 0, 0
	for _, ru := range d.rules {
		if ru.expr == "" {
			continue
		}
		if err := ru.compile(); err != nil {
			t.Fatal(err)
		}
		if ru.at == nil {
			continue
		}
		anchored++
		for n := range 300 {
			var b strings.Builder
			for range 1 + r.IntN(6) {
				s := string(ru.starts[r.IntN(len(ru.starts))])
				if ru.fold && r.IntN(2) == 0 {
					s = strings.ToUpper(s)
				}
				switch r.IntN(6) {
				case 0:
					b.WriteString(token("", alnum+"_-.=/+", r.IntN(8), r.Uint64()))
				case 5:
					// Bytes whose lowercasing (not ASCII's) changes their length.
					b.WriteString([]string{"\xe9", "\u0130", "\xff\xfe", "\u00c9"}[r.IntN(4)])
				case 1:
					b.WriteString(s)
				default:
					b.WriteString(token(s, []string{alnum, lowerAN, base32, "0123456789abcdef", alnum + "_-"}[r.IntN(5)], r.IntN(300), r.Uint64()))
				}
				if r.IntN(2) == 0 {
					sep := " \n\t'\";=:_x.-`"
					b.WriteByte(sep[r.IntN(len(sep))])
				}
			}
			content := []byte(b.String())
			in := content
			if ru.fold {
				in = asciiLower(content)
			}
			got, want := ru.findAll(content, in), ru.re.FindAllIndex(content, -1)
			matched += len(want)
			if len(got) != len(want) {
				t.Fatalf("rule %s, text %d %q: anchored %v, whole %v", ru.id, n, content, got, want)
			}
			for i := range got {
				if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
					t.Fatalf("rule %s, text %d %q: anchored %v, whole %v", ru.id, n, content, got, want)
				}
			}
		}
	}
	if anchored < 100 || matched < 10*anchored {
		t.Errorf("only %d rules run anchored, %d matches compared", anchored, matched)
	}
	t.Logf("%d rules run anchored, %d matches compared", anchored, matched)
}

// TestRuleThatCannotRunBlocks: a rule whose expression does not compile (or names a group it
// does not have) cannot clear a file holding its keyword: the file is a finding.
func TestRuleThatCannotRunBlocks(t *testing.T) {
	t.Parallel()
	for _, conf := range []string{
		"[[rules]]\nid = \"broken\"\nregex = '(a'\nkeywords = [\"ab\"]\n",
		"[[rules]]\nid = \"broken\"\nregex = '(a)'\nsecretGroup = 2\nkeywords = [\"ab\"]\n",
	} {
		d, err := Parse([]byte(conf), nil)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := d.Content("a.txt", []byte("xyz\n")); ok {
			t.Errorf("no keyword, yet %+v", f)
		}
		f, ok := d.Content("a.txt", []byte("an abc\n"))
		if !ok || f.Rule != "broken" || !strings.Contains(f.Description, "does not compile") {
			t.Errorf("got %+v, %v", f, ok)
		}
	}
}
