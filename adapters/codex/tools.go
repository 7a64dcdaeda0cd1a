package codex

import "github.com/hubdev/hub/adapters"

// readOnly says the session runs in codex's read-only preset whatever mode
// was chosen: it must ask before every side effect, or its tool filter (a
// persona's tools) allows nothing that writes or runs. Codex has no
// per-tool switch, so its sandbox and approval policy carry the filter.
func readOnly(opts adapters.SessionOptions) bool {
	return opts.Access == adapters.AccessAskFirst || (opts.Tools != nil && !opts.Tools.Writes())
}
