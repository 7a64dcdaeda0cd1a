// Package conversation is hub's conversation core: the rules every front
// end shares. hub acp, hub run, hub mcp and /compare only translate between
// their wire format and it, or its engines delegation and bestof.
//
// It owns, each exactly once: the permission gate (gate.go), the turn
// pipeline (turn.go), the digest of what a turn did (digest.go), and the
// fallback rule and walk (fallback.go).
//
// Words, one meaning each:
//   - a session is hub's conversation with one user: an ACP session, one
//     hub run, one delegate conversation. What an agent CLI keeps under its
//     own id is the agent session (adapters.Session), which the session's
//     Agent (agent.go) starts, restarts and sleeps; a front end's Agents
//     share a Warm (warm.go). Its Turns (turns.go) run its prompts in order.
//   - a turn is one prompt and everything the agent does for it, until its
//     stop reason. adapters.Turn is the queue that carries one turn's events.
package conversation
