// Package acp implements hub's Agent Client Protocol (v1) agent side: a server
// (Serve) that maps editor sessions onto adapters.Session and the normalized
// adapters.Event stream onto session/update notifications.
//
// Behaviour choices the spec leaves open:
//
//   - A second session/prompt while a turn is running on the same session is
//     queued: it runs when the turns before it end and is answered after
//     them, in order. session/cancel ends the running turn and drops the
//     queued prompts (conversation.Turns), and a prompt whose turn had not
//     yet reached the agent; each answers "cancelled". A prompt sent after the
//     cancel waits for the cancelled turn to wind down, then runs.
//   - Requests other than initialize before initialize get -32600.
//   - session/cancel for an unknown or idle session is ignored.
//   - session/close and session/delete of unknown sessions succeed.
//   - "Always" permission answers are remembered per session and per tool
//     name (or kind when the tool has no name), never broader than the
//     command shown (see permission.AlwaysScope), and answered without asking.
//   - A client JSON-RPC error to session/request_permission is a rejection.
//   - A request hub stops waiting for (its question ended) is withdrawn
//     with $/cancel_request; its late answer is dropped.
//   - A tool call the agent leaves pending or in progress when its turn
//     ends is reported failed before the prompt response (not after a
//     cancel: the client marks those itself).
//   - A request with "id": null is answered with "id": null.
//   - MCP servers go to the agent when it takes them; an agent without MCP
//     support gets none, and each skipped server is logged.
//   - session/set_mode is followed by a config_option_update and a "mode"
//     set_config_option by a current_mode_update, keeping both in sync;
//     switching the "agent" option replaces the old agent's slash commands.
//   - /compare (hub's own slash command, offered where the cwd is in a git
//     repository) runs best of N in the session's cwd instead of a turn of
//     the session's agent; each candidate is a tool call (see compare.go).
//
// Logs go to the Logger (stderr); only protocol bytes are written to out.
package acp

import "errors"

// Sentinel errors.
var (
	ErrNoCapability = errors.New("client did not advertise this capability")
)
