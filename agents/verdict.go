package agents

import (
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
)

// verdict merges the results of the event and its git gates (in that order) into one answer:
// deny over ask over allow, the reasons of the winning decision joined; a gate's reason says
// which gate. Every hook's feedback is context for the model (the blocking hook's is part of the
// reason), and so is the plain output of SessionStart and UserPromptSubmit hooks, as both hosts
// do with their own hooks' output there.
func (h *handler) verdict(results ...*hooks.Result) *Verdict {
	v := &Verdict{HostEvent: h.hostEvent, Blockable: h.blockable}
	if h.mapped {
		v.Event = h.event
	}
	plainIsContext := plainContext(h.o.Agent, h.event)
	var deny, ask, allow, block []string
	allowed := false
	fedBack := map[string]bool{} // the warnings of blocks the agent passes on as such
	for i, res := range results {
		prefix := ""
		if i > 0 {
			prefix = res.Event + ": " // a git gate
		}
		blocker := -1
		if res.Blocked {
			blocker = lastBlocked(res)
			reason := res.Reason
			if reason == "" {
				reason = res.Event + " was blocked"
			}
			if res.Feedback != "" {
				reason += "\n" + res.Feedback
			}
			deny = append(deny, prefix+reason)
		} else if res.Decision == hooks.DecisionAsk {
			ask = append(ask, prefix+res.Reason)
		}
		for j, hr := range res.Hooks {
			switch {
			case hr.Status == hooks.StatusOK && hr.Decision == hooks.DecisionApprove:
				allowed = true
				if hr.Reason != "" {
					allow = append(allow, prefix+hr.Reason)
				}
			case hr.Status == hooks.StatusBlocked && !res.Blocked && !hooks.CanBlock(res.Event):
				block = append(block, hr.Reason)
				fedBack[hooks.UnblockableWarning(hr.Name, res.Event, hr.Reason)] = true
			}
			if hr.Feedback != "" && j != blocker {
				v.Context = append(v.Context, hr.Feedback)
			}
			if plainIsContext && hr.Status == hooks.StatusOK {
				if out := strings.TrimSpace(hr.Stdout); out != "" && !strings.HasPrefix(out, "{") {
					v.Context = append(v.Context, out)
				}
			}
		}
		for _, w := range res.Warnings {
			if !fedBack[w] {
				v.Warnings = append(v.Warnings, w)
			}
		}
	}
	if v.Blockable {
		switch {
		case len(deny) > 0:
			v.Decision, v.Reason = Deny, strings.Join(deny, "\n")
		case len(ask) > 0:
			v.Decision, v.Reason = Ask, strings.Join(ask, "\n")
		case allowed:
			v.Decision, v.Reason = Allow, strings.Join(allow, "\n")
		}
	}
	v.Block = strings.Join(block, "\n")
	if len(results) > 0 && results[0].UpdatedInput != nil && v.Blockable && v.Decision != Deny {
		v.UpdatedInput = results[0].UpdatedInput
		if r, ok := h.o.Agent.(Rewriter); !ok || !r.Rewrites() {
			v.Decision, v.UpdatedInput = Deny, nil
			v.Reason = "a hook rewrote the call's input, and " + h.o.Agent.Title() + " cannot run a rewritten call: it is refused rather than run as asked"
		}
	}
	return v
}

// lastBlocked is the index of the hook whose block decided a blocked result.
func lastBlocked(res *hooks.Result) int {
	for i := len(res.Hooks) - 1; i >= 0; i-- {
		if res.Hooks[i].Status == hooks.StatusBlocked || res.Hooks[i].Status == hooks.StatusError || res.Hooks[i].Status == hooks.StatusTimeout {
			return i
		}
	}
	return -1
}
