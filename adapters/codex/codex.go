// Package codex drives OpenAI's Codex CLI through `codex app-server`
// (JSON-RPC over stdio: threads, turns, items, approvals), falling back to
// one `codex exec --json` process per turn when app-server is unavailable.
package codex

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// errNoStart means app-server did not start: Start falls back to exec.
var errNoStart = errors.New("codex app-server did not start")

const TestedVersions = "0.169.0"

var _ adapters.Adapter = (*Adapter)(nil)

type Adapter struct {
	cfg config.AgentConfig
	log zerolog.Logger
	// InitTimeout bounds the initialize handshake before falling back to exec.
	InitTimeout time.Duration
	// ModelListTimeout bounds model/list, which runs alongside thread/start.
	ModelListTimeout time.Duration

	mu      sync.Mutex
	catalog modelCatalog
	version atomic.Value // string: the codex version an app-server session reported
}

// New returns the codex adapter for cfg (zero value: `codex` on PATH).
// Options: transport = "exec" forces the exec fallback; sandbox sets the
// thread sandbox mode (default "workspace-write"); approval_policy (default
// "on-request"); models = [..] extra model ids. The model list comes from
// app-server's model/list once a session started, else a static list.
func New(cfg config.AgentConfig, log zerolog.Logger) *Adapter {
	return &Adapter{cfg: cfg, log: log.With().Str("agent", "codex").Logger(), InitTimeout: 20 * time.Second, ModelListTimeout: 2 * time.Second}
}

func (a *Adapter) Name() string { return "codex" }

// Ready implements adapters.Checker.
func (a *Adapter) Ready() error { return adapters.FindCLI(a.cfg.ArgvOr("codex")[0]) }

func (a *Adapter) Capabilities() adapters.Capabilities {
	models, def := a.models()
	return adapters.Capabilities{
		Images: true, Resume: true, Fork: true, Permissions: true, MCP: true, MCPHTTP: true,
		Models: models, DefaultModel: def, Modes: modes, DefaultMode: a.mode(adapters.SessionOptions{Mode: a.cfg.Mode}), Skills: "native", Instructions: true,
		OutputSchema: true, TestedVersions: TestedVersions,
		Notes: "app-server JSON-RPC; falls back to `codex exec --json` (no permission prompts) when app-server is unavailable; " +
			"skills load natively from hub's temp dir through app-server's skills/extraRoots/set (CODEX_HOME and the project stay untouched); " +
			"the exec fallback, which cannot add a skills dir, gets them in front of the first prompt",
	}
}

// Start implements adapters.Adapter: app-server first, exec as fallback.
func (a *Adapter) Start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	opts.Model, opts.Mode = cmp.Or(opts.Model, a.cfg.Model), cmp.Or(opts.Mode, a.cfg.Mode)
	if a.cfg.Option("transport") != "exec" {
		s, err := a.startAppServer(ctx, opts)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errNoStart) {
			return nil, err
		}
		a.log.Warn().Err(err).Msg("codex app-server unavailable; using codex exec --json")
	}
	return a.startExec(opts)
}

// configOverrides turns MCP servers and more workspace roots into `-c` flags.
func configOverrides(opts adapters.SessionOptions) []string {
	var out []string
	if len(opts.AddDirs) > 0 {
		out = append(out, "-c", "sandbox_workspace_write.writable_roots="+tomlArray(opts.AddDirs))
	}
	for _, s := range opts.MCPServers {
		key := "mcp_servers." + tomlKey(s.Name)
		switch s.Type {
		case "http", "sse":
			out = append(out, "-c", key+".url="+tomlString(s.URL))
			if len(s.Headers) > 0 {
				out = append(out, "-c", key+".http_headers="+tomlTable(s.Headers))
			}
		default:
			out = append(out, "-c", key+".command="+tomlString(s.Command))
			out = append(out, "-c", key+".args="+tomlArray(s.Args))
			if len(s.Env) > 0 {
				out = append(out, "-c", key+".env="+tomlTable(s.Env))
			}
		}
	}
	return out
}

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
	_, v, _ := strings.Cut(first, "/")
	return v
}

// cliVersion is the codex version an app-server session reported, "" until one did.
func (a *Adapter) cliVersion() string { v, _ := a.version.Load().(string); return v }

func (a *Adapter) setCLIVersion(v string) {
	if v != "" {
		a.version.Store(v)
	}
}

// tomlString and tomlArray write JSON, whose strings and arrays of
// strings TOML reads alike (escapes included).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func tomlKey(s string) string {
	if bareKey.MatchString(s) {
		return s
	}
	return tomlString(s)
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

func tomlArray(a []string) string {
	b, _ := json.Marshal(append([]string{}, a...)) // [] for none, not null
	return string(b)
}

func tomlTable(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = tomlKey(k) + "=" + tomlString(m[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}
