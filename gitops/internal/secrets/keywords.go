package secrets

import "fmt"

// keywords finds which rules' keywords occur in a content, case-insensitively (ASCII), in one
// pass: gitleaks' prefilter, which runs an Aho-Corasick automaton over the lowercased content.
// Here a table of the keywords' first two bytes says at which positions a keyword may start, and
// only there are the keywords of that pair compared. The keywords are short literals and most
// positions start none, so the pass costs a table lookup a byte.
type keywords struct {
	byPair [1 << 16]uint16 // lowercase byte pair → 1 + its index in pairs, 0 for none
	pairs  [][]keyword     // the keywords starting with a pair
	nRules int
}

type keyword struct {
	text  []byte // lowercase
	rules []int
}

// newKeywords indexes the keywords of each rule (kws[i] are rule i's).
func newKeywords(kws [][]string) (*keywords, error) {
	k := &keywords{nRules: len(kws)}
	index := map[string][2]int{} // keyword → its pair's index and its own there
	for i, list := range kws {
		for _, w := range list {
			b := []byte(w)
			for j := range b {
				b[j] = lower[b[j]]
			}
			if len(b) < 2 {
				return nil, fmt.Errorf("rule %d: keyword %q: want at least 2 bytes", i, w)
			}
			if at, ok := index[string(b)]; ok {
				kw := &k.pairs[at[0]][at[1]]
				kw.rules = append(kw.rules, i)
				continue
			}
			pair := uint16(b[0])<<8 | uint16(b[1])
			if k.byPair[pair] == 0 {
				k.pairs = append(k.pairs, nil)
				k.byPair[pair] = uint16(len(k.pairs))
			}
			p := int(k.byPair[pair]) - 1
			index[string(b)] = [2]int{p, len(k.pairs[p])}
			k.pairs[p] = append(k.pairs[p], keyword{text: b, rules: []int{i}})
		}
	}
	return k, nil
}

// rules says, by rule, whether one of its keywords occurs in content.
func (k *keywords) rules(content []byte) []bool {
	found := make([]bool, k.nRules)
	if len(content) < 2 {
		return found
	}
	prev := lower[content[0]]
	for i := 1; i < len(content); i++ {
		c := lower[content[i]]
		p := k.byPair[uint16(prev)<<8|uint16(c)]
		prev = c
		if p == 0 {
			continue
		}
	next:
		for _, w := range k.pairs[p-1] {
			start := i - 1
			if len(content)-start < len(w.text) {
				continue
			}
			for j := 2; j < len(w.text); j++ {
				if lower[content[start+j]] != w.text[j] {
					continue next
				}
			}
			for _, r := range w.rules {
				found[r] = true
			}
		}
	}
	return found
}

// lower maps ASCII upper case letters to lower case, every other byte to itself.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()
