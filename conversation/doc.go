// Package conversation is hub's conversation core: the one place where the
// rules every front end shares live. hub acp, hub run, hub mcp and /compare
// only translate between their wire format and it, or its engines
// delegation (delegates) and bestof (best of N).
//
// It owns, each exactly once:
//   - the permission gate (gate.go): one evaluation order and one Answerer
//     for whoever answers (the editor, --approve, a parent session), whose
//     decisions are events of the running turn;
//   - the turn pipeline (turn.go): prompt hooks, the prompt, observers
//     (hooks, audit) around the event stream, the digest and the
//     classification of how the turn ended;
//   - the digest (digest.go): what one turn did (its refusals included),
//     for every front end and the handover briefing;
//   - the fallback rule (fallback.go): which failures hand a turn to the
//     next agent, decided as early as the failure is known, and the walk
//     down a fallback list (Fallbacks) hub acp, hub run and delegates share.
//
// Words, one meaning each:
//   - a session is hub's conversation with one user: an ACP session, one
//     hub run, one delegate conversation. What an agent CLI keeps under its
//     own id is the agent session (adapters.Session). The session's Agent
//     (agent.go) owns the one it runs on: start, restart, sleep, crashes;
//     the Agents of a front end share a Warm (warm.go): cap and idle timeout.
//     Its Turns (turns.go) run its prompts one at a time, in order.
//   - a turn is one prompt and everything the agent does for it, until its
//     stop reason. adapters.Turn is the queue that carries one turn's events.
package conversation
