package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Answer is a hook's JSON decision on stdout: {"decision":"block|approve","reason":…,"feedback":…}.
type Answer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Feedback string `json:"feedback"`
}

// ParseAnswer reads a hook's stdout as a JSON decision. ok is false when stdout is not a JSON
// object with a "decision" field (plain output is normal, not an error). err reports an object
// that has a "decision" the protocol does not know: a typo there must not pass silently.
func ParseAnswer(stdout string) (a Answer, ok bool, err error) {
	trimmed := bytes.TrimSpace([]byte(stdout))
	if len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return Answer{}, false, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(trimmed, &fields) != nil {
		return Answer{}, false, nil
	}
	raw, has := fields["decision"]
	if !has {
		return Answer{}, false, nil
	}
	var decision string
	if json.Unmarshal(raw, &decision) != nil {
		return Answer{}, false, fmt.Errorf(`"decision" must be a string, got %s`, raw)
	}
	a.Decision = strings.ToLower(strings.TrimSpace(decision))
	a.Reason = stringField(fields["reason"])
	a.Feedback = stringField(fields["feedback"])
	switch a.Decision {
	case DecisionBlock, DecisionApprove, DecisionSkip:
		return a, true, nil
	case "":
		return a, false, nil
	default:
		msg := fmt.Sprintf("unknown decision %q (want block or approve)", decision)
		if s := Suggest(a.Decision, []string{DecisionBlock, DecisionApprove, DecisionSkip}); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return a, false, fmt.Errorf("%s", msg)
	}
}

func stringField(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
