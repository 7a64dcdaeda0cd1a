package codex

import (
	"strings"

	"github.com/hubdev/hub/adapters"
)

// unknownRecords warns about records hub does not understand, naming the
// codex version an app-server session reported.
func (a *Adapter) unknownRecords() *adapters.UnknownRecords {
	return adapters.NewUnknownRecords(a.log, "codex", TestedVersions, adapters.UnknownOptions{Version: a.cliVersion})
}

// userAgentVersion extracts the CLI version from app-server's initialize
// userAgent ("codex_cli_rs/0.169.0 (Debian 12; x86_64) ..."; the originator
// before the slash varies with the client name). "" when absent.
func userAgentVersion(ua string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	_, v, _ := strings.Cut(first, "/") // "" without one
	return v
}

// cliVersion is the codex version an app-server session reported, "" until
// one did.
func (a *Adapter) cliVersion() string { v, _ := a.version.Load().(string); return v }

func (a *Adapter) setCLIVersion(v string) {
	if v != "" {
		a.version.Store(v)
	}
}
