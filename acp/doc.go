// Package acp implements hub's Agent Client Protocol (v1) agent side: the
// protocol types, a newline-delimited JSON-RPC 2.0 connection, and a server
// (Serve) that maps editor sessions onto adapters.Session and the normalized
// adapters.Event stream onto session/update notifications.
//
// Behaviour choices the spec leaves open:
//
//   - A second session/prompt while a turn is running on the same session is
//     rejected at once with JSON-RPC error -32602 ("session is busy"); the
//     running turn is not affected. Clients cancel first, then prompt.
//   - Requests other than initialize before initialize get -32600.
//   - session/cancel for an unknown or idle session is ignored.
//   - session/close and session/delete of unknown sessions succeed.
//   - "Always" permission answers are remembered per session and per tool
//     name (or kind when the tool has no name) and answered without asking.
//   - A client JSON-RPC error to session/request_permission is a rejection.
//
// Logs go to the Logger (stderr); only protocol bytes are written to out.
package acp

import "errors"

// Sentinel errors.
var (
	ErrUnknownUpdate = errors.New("unknown session update kind")
	ErrConnClosed    = errors.New("acp connection closed")
	ErrNoCapability  = errors.New("client did not advertise this capability")
)
