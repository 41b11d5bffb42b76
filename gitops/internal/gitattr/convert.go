package gitattr

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"

	"github.com/autoagent/agent-hooks/gitops/internal/gitconfig"
)

// What git add stores for a file's content is its "clean" conversion (git's convert.c,
// convert_to_git): line endings per the text, eol and crlf attributes and core.autocrlf/core.eol,
// then $Id$ collapsed per the ident attribute. Clean filters and working-tree-encoding are not
// run. core.safecrlf is honoured: warn (the default) reports a conversion a checkout would not
// undo, true refuses it.

// crlfAction is git's crlf_action: what happens to line endings when a file is added.
type crlfAction int

const (
	crlfUndefined crlfAction = iota
	crlfBinary               // stored as is
	crlfText                 // CRLF -> LF (resolved to crlfTextInput or crlfTextCRLF)
	crlfTextInput
	crlfTextCRLF
	crlfAuto // CRLF -> LF when the content looks like text (resolved below when eol is set)
	crlfAutoInput
	crlfAutoCRLF
)

func (a crlfAction) auto() bool { return a == crlfAuto || a == crlfAutoInput || a == crlfAutoCRLF }

// eolStyle is core.eol, or an eol attribute.
type eolStyle int

const (
	eolUnset eolStyle = iota
	eolLF
	eolCRLF
)

type autoCRLF int

const (
	autoCRLFFalse autoCRLF = iota
	autoCRLFTrue
	autoCRLFInput
)

type safeCRLF int

const (
	safeCRLFOff safeCRLF = iota
	safeCRLFWarn
	safeCRLFDie
)

// Converter is a repository's configuration of the clean conversion.
type Converter struct {
	autocrlf autoCRLF
	eol      eolStyle // core.eol; eolUnset is native
	safecrlf safeCRLF
}

// NewConverter reads core.autocrlf, core.eol and core.safecrlf.
func NewConverter(cfg *gitconfig.Config) Converter {
	c := Converter{safecrlf: safeCRLFWarn}
	switch v := cfg.Get("core", "", "autocrlf"); {
	case strings.EqualFold(v, "input"):
		c.autocrlf = autoCRLFInput
	case cfg.Bool("core", "", "autocrlf", false):
		c.autocrlf = autoCRLFTrue
	}
	switch strings.ToLower(cfg.Get("core", "", "eol")) {
	case "lf":
		c.eol = eolLF
	case "crlf":
		c.eol = eolCRLF
	}
	if v := cfg.Get("core", "", "safecrlf"); v != "" && !strings.EqualFold(v, "warn") {
		c.safecrlf = safeCRLFOff
		if cfg.Bool("core", "", "safecrlf", false) {
			c.safecrlf = safeCRLFDie
		}
	}
	return c
}

// Conversion is what the attributes and configuration ask of one file's conversion.
type Conversion struct {
	action crlfAction
	ident  bool
}

// checkCRLF reads the text (or legacy crlf) attribute.
func checkCRLF(a State) crlfAction {
	switch {
	case a.Set:
		return crlfText
	case a.Unset:
		return crlfBinary
	case a.Value == "input":
		return crlfTextInput
	case a.Value == "auto":
		return crlfAuto
	}
	return crlfUndefined
}

// Identity reports whether the conversion stores any content as it is (binary, no ident): then a
// file can be hashed while it is read, without looking at its content first.
func (ca Conversion) Identity() bool { return ca.action == crlfBinary && !ca.ident }

// For is git's convert_attrs: what the attributes a of a file and the configuration ask of its
// conversion.
func (c Converter) For(a map[string]State) Conversion {
	action := checkCRLF(a["text"])
	if action == crlfUndefined {
		action = checkCRLF(a["crlf"])
	}
	if action != crlfBinary {
		var eol eolStyle
		switch a["eol"].Value {
		case "lf":
			eol = eolLF
		case "crlf":
			eol = eolCRLF
		}
		switch {
		case action == crlfAuto && eol == eolLF:
			action = crlfAutoInput
		case action == crlfAuto && eol == eolCRLF:
			action = crlfAutoCRLF
		case eol == eolLF:
			action = crlfTextInput
		case eol == eolCRLF:
			action = crlfTextCRLF
		}
	}
	switch {
	case action == crlfText && c.textEOLIsCRLF():
		action = crlfTextCRLF
	case action == crlfText:
		action = crlfTextInput
	case action == crlfUndefined && c.autocrlf == autoCRLFFalse:
		action = crlfBinary
	case action == crlfUndefined && c.autocrlf == autoCRLFTrue:
		action = crlfAutoCRLF
	case action == crlfUndefined && c.autocrlf == autoCRLFInput:
		action = crlfAutoInput
	}
	return Conversion{action: action, ident: a["ident"].Set}
}

func (c Converter) textEOLIsCRLF() bool {
	switch {
	case c.autocrlf == autoCRLFTrue:
		return true
	case c.autocrlf == autoCRLFInput:
		return false
	case c.eol == eolCRLF:
		return true
	}
	return c.eol == eolUnset && runtime.GOOS == "windows"
}

// outputEOL is the line ending a checkout writes for action.
func (c Converter) outputEOL(action crlfAction) eolStyle {
	switch action {
	case crlfBinary:
		return eolUnset
	case crlfTextCRLF, crlfUndefined, crlfAutoCRLF:
		return eolCRLF
	case crlfTextInput, crlfAutoInput:
		return eolLF
	}
	if c.textEOLIsCRLF() {
		return eolCRLF
	}
	return eolLF
}

// textStat is git's text_stat: counts that tell text from binary.
type textStat struct {
	nul, lonecr, lonelf, crlf int
	printable, nonprintable   int
}

func gatherStats(b []byte) textStat {
	var s textStat
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				s.crlf++
				i++
			} else {
				s.lonecr++
			}
		case c == '\n':
			s.lonelf++
		case c == 127:
			s.nonprintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				s.printable++
			case 0:
				s.nul++
				s.nonprintable++
			default:
				s.nonprintable++
			}
		default:
			s.printable++
		}
	}
	// A file ending in ^Z (an old DOS end-of-file mark) is not binary for it.
	if len(b) > 0 && b[len(b)-1] == '\032' {
		s.nonprintable--
	}
	return s
}

func (s textStat) binary() bool {
	return s.lonecr > 0 || s.nul > 0 || s.printable>>7 < s.nonprintable
}

// HasCRLFText is git's has_crlf_in_index test on a blob: text with CRLF line endings.
func HasCRLFText(b []byte) bool {
	if bytes.IndexByte(b, '\r') < 0 {
		return false
	}
	s := gatherStats(b)
	return !s.binary() && s.crlf > 0
}

// ToGit converts a file's content as git add does. indexHasCRLF reports whether the file's
// current index entry is text with CRLF endings (the "safer autocrlf" rule). With adding, what
// core.safecrlf asks applies: warning is git's warning, err its refusal; without (hashing to
// compare), neither.
func (c Converter) ToGit(path string, src []byte, ca Conversion, indexHasCRLF func() bool, adding bool) (out []byte, warning string, err error) {
	out, warning, err = c.crlfToGit(path, src, ca.action, indexHasCRLF, adding)
	if err != nil {
		return nil, "", err
	}
	if ca.ident {
		out = identToGit(out)
	}
	return out, warning, nil
}

func (c Converter) crlfToGit(path string, src []byte, action crlfAction, indexHasCRLF func() bool, adding bool) ([]byte, string, error) {
	if action == crlfBinary || len(src) == 0 {
		return src, "", nil
	}
	st := gatherStats(src)
	convert := st.crlf > 0
	if action.auto() {
		if st.binary() {
			return src, "", nil
		}
		if convert && indexHasCRLF != nil && indexHasCRLF() {
			convert = false
		}
	}
	var warning string
	if adding && c.safecrlf != safeCRLFOff {
		after := st // as "git add" then "git checkout" would leave it
		if convert {
			after.lonelf += after.crlf
			after.crlf = 0
		}
		if c.willConvertLFToCRLF(after, action) {
			after.crlf += after.lonelf
			after.lonelf = 0
		}
		var from, to string
		switch {
		case st.crlf > 0 && after.crlf == 0:
			from, to = "CRLF", "LF"
		case st.lonelf > 0 && after.lonelf == 0:
			from, to = "LF", "CRLF"
		}
		if from != "" {
			if c.safecrlf == safeCRLFDie {
				return nil, "", fmt.Errorf("%s would be replaced by %s in %s (core.safecrlf is true)", from, to, path)
			}
			warning = fmt.Sprintf("in the working copy of '%s', %s will be replaced by %s the next time Git touches it", path, from, to)
		}
	}
	if !convert {
		return src, warning, nil
	}
	out := make([]byte, 0, len(src)-st.crlf)
	for i, ch := range src {
		if ch != '\r' {
			out = append(out, ch)
			continue
		}
		// With a guess (auto) the content has no lone CR: every CR goes.
		if !action.auto() && (i+1 >= len(src) || src[i+1] != '\n') {
			out = append(out, ch)
		}
	}
	return out, warning, nil
}

func (c Converter) willConvertLFToCRLF(st textStat, action crlfAction) bool {
	if c.outputEOL(action) != eolCRLF || st.lonelf == 0 {
		return false
	}
	if action.auto() && (st.lonecr > 0 || st.crlf > 0 || st.binary()) {
		return false
	}
	return true
}

// identToGit collapses "$Id: … $" (on one line) to "$Id$", as git's ident_to_git.
func identToGit(src []byte) []byte {
	if !bytes.Contains(src, []byte("$Id:")) {
		return src
	}
	out := make([]byte, 0, len(src))
	for {
		i := bytes.IndexByte(src, '$')
		if i < 0 {
			break
		}
		out = append(out, src[:i+1]...)
		src = src[i+1:]
		if len(src) > 3 && bytes.HasPrefix(src, []byte("Id:")) {
			j := bytes.IndexByte(src[3:], '$')
			if j < 0 {
				break
			}
			if bytes.IndexByte(src[3:3+j], '\n') >= 0 {
				continue // a line break before the closing $: left alone
			}
			out = append(out, "Id$"...)
			src = src[3+j+1:]
		}
	}
	return append(out, src...)
}
