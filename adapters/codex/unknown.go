package codex

import (
	"strings"
	"sync"

	"github.com/rs/zerolog"
)

// unknownRecords warns the first time a session meets each record type hub
// does not understand, naming the codex version so a user can tell an
// untested upgrade from a hub bug; repeats stay quiet so logs do not flood.
type unknownRecords struct {
	log     zerolog.Logger
	version func() string

	mu   sync.Mutex
	seen map[string]bool
}

func newUnknownRecords(log zerolog.Logger, version func() string) *unknownRecords {
	return &unknownRecords{log: log, version: version, seen: map[string]bool{}}
}

// note logs source (the raw event's record type) once.
func (u *unknownRecords) note(source string) {
	u.mu.Lock()
	first := !u.seen[source]
	u.seen[source] = true
	u.mu.Unlock()
	if !first {
		return
	}
	v := u.version()
	if v == "" {
		v = "unknown"
	}
	u.log.Warn().Str("record", source).Str("codex_version", v).Str("tested", TestedVersions).
		Msgf("codex sent %s, which hub does not understand (codex %s, tested with %s); passing it on raw", source, v, TestedVersions)
}

// userAgentVersion extracts the CLI version from app-server's initialize
// userAgent ("codex_cli_rs/0.169.0 (Debian 12; x86_64) ..."; the originator
// before the slash varies with the client name). "" when absent.
func userAgentVersion(ua string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	_, v, ok := strings.Cut(first, "/")
	if !ok {
		return ""
	}
	return v
}

// cliVersion is the codex version an app-server session reported, "" until
// one did.
func (a *Adapter) cliVersion() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.version
}

func (a *Adapter) setCLIVersion(v string) {
	if v == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.version = v
}
