package hostsettings_test

import (
	"github.com/autoagent/agent-hooks/agents/claude"
	"github.com/autoagent/agent-hooks/agents/cline"
	"github.com/autoagent/agent-hooks/agents/codex"
	"github.com/autoagent/agent-hooks/agents/copilot"
	"github.com/autoagent/agent-hooks/agents/cursor"
	"github.com/autoagent/agent-hooks/agents/gemini"
)

// The agents' settings, as their packages declare them.
var (
	Claude  = claude.Agent{}.Settings()
	Codex   = codex.Agent{}.Settings()
	Copilot = copilot.Agent{}.Settings()
	Cline   = cline.Agent{}.Settings()
	Gemini  = gemini.Agent{}.Settings()
	Cursor  = cursor.Agent{}.Settings()
)
