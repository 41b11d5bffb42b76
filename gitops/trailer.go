package gitops

import (
	"regexp"
	"strings"
	"sync"
)

// SessionTrailer is the trailer key by which a commit made by a git-commit hook names the
// agent-hooks session it was made in, so that a commit leads to its session (and its audit
// trail, pushed with `agent-hooks session push`).
const SessionTrailer = "Agent-Hooks-Session"

// trailerLine is a line of a trailer block ("Key: value"), as git interpret-trailers reads it.
var trailerLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*:\s*\S`) })

// withTrailer adds "key: value" to msg the way `git commit --trailer` does: to the trailer block
// that ends the message if it has one, else as a new paragraph. A message that already carries
// the same trailer is returned as it is; an empty value adds nothing.
func withTrailer(msg, key, value string) string {
	if value == "" {
		return msg
	}
	line := key + ": " + value
	body := strings.TrimRight(msg, " \t\n")
	paras := strings.Split(body, "\n\n")
	last := paras[len(paras)-1]
	for _, l := range strings.Split(last, "\n") {
		if strings.TrimSpace(l) == line {
			return msg
		}
	}
	if len(paras) > 1 && isTrailerBlock(last) {
		return body + "\n" + line + "\n"
	}
	return body + "\n\n" + line + "\n"
}

func isTrailerBlock(para string) bool {
	for _, l := range strings.Split(para, "\n") {
		if !trailerLine().MatchString(l) && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
			return false
		}
	}
	return true
}
