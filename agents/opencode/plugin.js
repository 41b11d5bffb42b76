// OpenCode loads every file of this folder as a plugin. This one hands OpenCode's events to
// agent-hooks (COMMAND, above) and refuses what agent-hooks refuses: a tool call or a prompt is
// refused when agent-hooks denies it, exits non-zero, outlasts its timeout or cannot be run at
// all. Take it out with: agent-hooks uninstall opencode (--user for the user's).
import { spawn } from "node:child_process"

const COMMAND = ARGV
const TIMEOUT_MS = TIMEOUT_SECONDS * 1000 + 5000 // agent-hooks answers within its --timeout
const MAX_OUTPUT = 1 << 20

// run hands one event to agent-hooks; it resolves to its answer, or to a refusal when agent-hooks
// could not decide.
function run(input, cwd) {
  return new Promise((resolve) => {
    let done = false, out = "", err = ""
    const finish = (answer) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(answer)
    }
    const refuse = (why) => finish({ decision: "deny", reason: "agent-hooks refused this " + input.hook_event_name + ": " + why, failed: true })
    let child
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { cwd, stdio: ["pipe", "pipe", "pipe"] })
    } catch (e) {
      refuse("could not run " + COMMAND[0] + ": " + e.message)
      return
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      refuse(COMMAND[0] + " did not answer within " + TIMEOUT_MS / 1000 + " s")
    }, TIMEOUT_MS)
    child.on("error", (e) => refuse("could not run " + COMMAND[0] + ": " + e.message))
    child.stdout.on("data", (b) => { if (out.length < MAX_OUTPUT) out += b })
    child.stderr.on("data", (b) => { if (err.length < MAX_OUTPUT) err += b })
    child.stdin.on("error", () => {})
    child.on("close", (code, signal) => {
      if (code !== 0) {
        refuse((err.trim() || COMMAND[0] + " exited with " + (signal || code)))
        return
      }
      if (out.trim() === "") {
        finish({})
        return
      }
      try {
        const answer = JSON.parse(out)
        finish(answer && typeof answer === "object" ? answer : {})
      } catch (e) {
        refuse("its answer is not JSON: " + out.trim().slice(0, 200))
      }
    })
    child.stdin.end(JSON.stringify(input))
  })
}

export const AgentHooks = async ({ directory }) => {
  const sessions = new Set()
  const send = async (hook, event, sessionID, fields) => {
    if (sessionID && event !== "SessionEnd") sessions.add(sessionID)
    const answer = await run({ session_id: sessionID || "", cwd: directory, hook_event_name: event, opencode_hook: hook, ...fields }, directory)
    if (answer.warning) console.error("agent-hooks: " + answer.warning)
    return answer
  }
  // gate throws what agent-hooks refuses: OpenCode then does not run the tool (or take the prompt).
  const gate = (answer) => {
    if (answer.decision === "deny") throw new Error(answer.reason || "blocked by agent-hooks")
  }
  const record = (answer) => {
    if (answer.failed) console.error("agent-hooks: " + answer.reason)
  }
  return {
    "tool.execute.before": async (input, output) => {
      gate(await send("tool.execute.before", "PreToolUse", input.sessionID,
        { tool_name: input.tool, tool_input: output.args, tool_use_id: input.callID }))
    },
    "tool.execute.after": async (input, output) => {
      const answer = await send("tool.execute.after", "PostToolUse", input.sessionID,
        { tool_name: input.tool, tool_input: input.args, tool_use_id: input.callID,
          tool_response: { title: output.title, output: output.output, metadata: output.metadata } })
      record(answer)
      if (answer.context && typeof output.output === "string") output.output += "\n\n" + answer.context
    },
    "chat.message": async (input, output) => {
      const prompt = (output.parts || []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n")
      gate(await send("chat.message", "UserPromptSubmit", input.sessionID, { prompt, agent_name: input.agent || output.message?.agent || "" }))
    },
    "experimental.session.compacting": async (input, output) => {
      const answer = await send("experimental.session.compacting", "PreCompact", input.sessionID, { trigger: "auto" })
      record(answer)
      if (answer.context && Array.isArray(output.context)) output.context.push(answer.context)
    },
    event: async ({ event }) => {
      const id = event.properties?.sessionID || event.properties?.info?.id
      switch (event.type) {
        case "session.created":
          if (!event.properties?.info?.parentID) record(await send(event.type, "SessionStart", id, { source: "startup" }))
          break
        case "session.idle":
          record(await send(event.type, "Stop", id, { stop_hook_active: false }))
          break
        case "session.error":
          record(await send(event.type, "Error", id, { error: event.properties?.error ?? null }))
          break
        case "session.deleted":
          sessions.delete(id)
          record(await send(event.type, "SessionEnd", id, { reason: "deleted" }))
          break
      }
    },
    dispose: async () => {
      for (const id of sessions) record(await send("dispose", "SessionEnd", id, { reason: "exit" }))
      sessions.clear()
    },
  }
}
