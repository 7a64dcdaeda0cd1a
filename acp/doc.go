// Package acp implements hub's Agent Client Protocol (v1) agent side: a server
// (Serve) that maps editor sessions onto adapters.Session and the normalized
// adapters.Event stream onto session/update notifications.
//
// Behaviour choices the spec leaves open:
//
//   - A session/prompt sent while a turn runs on the session is queued and
//     answered in order. session/cancel ends the running turn and drops the
//     queued prompts (conversation.Turns) and one whose turn has not reached
//     the agent yet, each answered "cancelled"; a prompt sent after the
//     cancel waits for the cancelled turn to wind down.
//   - Requests other than initialize before initialize get -32600.
//   - session/cancel for an unknown or idle session is ignored; session/close
//     and session/delete of unknown sessions succeed.
//   - "Always" permission answers are remembered per session and per tool
//     name (or kind), never broader than the command shown
//     (permission.AlwaysScope), and answered without asking.
//   - A client JSON-RPC error to session/request_permission is a rejection.
//   - A request hub stops waiting for is withdrawn with $/cancel_request; its
//     late answer is dropped.
//   - A tool call left pending or in progress when its turn ends is reported
//     failed before the prompt response (not after a cancel: the client
//     marks those itself).
//   - A request with "id": null is answered with "id": null.
//   - MCP servers go to the agent only when it takes them; each skipped one
//     is logged.
//   - session/set_mode is followed by a config_option_update and a "mode"
//     set_config_option by a current_mode_update; switching the "agent"
//     option replaces the old agent's slash commands.
//   - /compare (offered where the cwd is in a git repository) runs best of N
//     in the session's cwd instead of a turn of the session's agent.
//
// Logs go to the Logger (stderr); only protocol bytes are written to out.
package acp
