package github

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// failed is the outcome of a hook that could not do its work.
func failed(err error) hooks.Outcome {
	return hooks.Outcome{Status: hooks.StatusError, ExitCode: 1, Reason: err.Error()}
}

// progress prints one line of live progress for the user.
func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

var unsafeKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._:/#@+-]+`) })

// markerKey makes a key safe to embed in an HTML comment attribute.
func markerKey(s string) string { return unsafeKey().ReplaceAllString(s, "-") }

// sameLogin compares GitHub logins, which are case-insensitive.
func sameLogin(a, b string) bool { return strings.EqualFold(a, b) }

// roundDuration is hooks.RoundDuration, under the name this package's messages use.
func roundDuration(d time.Duration) time.Duration { return hooks.RoundDuration(d) }
