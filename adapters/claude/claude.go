// Package claude drives Claude Code (`claude`) as one persistent process per session over
// its stream-json stdin/stdout protocol; tool permission prompts arrive as can_use_tool
// control requests, answered with control responses.
package claude

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/trace"
)

// TestedVersions is the Claude Code release this adapter was verified with.
const TestedVersions = "2.1.330"

// ErrExited means the claude process ended; start a new session (with ResumeID to keep
// the conversation).
var ErrExited = fmt.Errorf("claude process exited (%w)", adapters.ErrClosed)

var (
	_ adapters.Adapter      = (*Adapter)(nil)
	_ adapters.Session      = (*Session)(nil)
	_ adapters.Configurable = (*Session)(nil)
)

type Adapter struct {
	argv  []string
	env   map[string]string
	model string
	mode  string
	log   zerolog.Logger
	// TrustProject lets claude read the project's settings files although hub has not
	// trusted them (--trust-project).
	TrustProject bool
}

// New builds the adapter from `[agents.claude]`; an empty command means "claude" on PATH.
func New(cfg config.AgentConfig, log zerolog.Logger) *Adapter {
	return &Adapter{argv: cfg.ArgvOr("claude"), env: cfg.Env, model: cfg.Model, mode: cfg.Mode,
		log: log.With().Str("agent", "claude").Logger()}
}

func (a *Adapter) Name() string { return "claude" }

func (a *Adapter) Ready() error { return adapters.FindCLI(a.argv[0]) }

func (a *Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{
		Images: true, EmbeddedContext: true, Resume: true, Fork: true, Permissions: true, MCP: true, MCPHTTP: true,
		Models: []adapters.Option{
			{ID: "default", Name: "Default", Description: "Claude Code's default model"},
			{ID: "opus", Name: "Opus"}, {ID: "sonnet", Name: "Sonnet"}, {ID: "haiku", Name: "Haiku"},
		},
		Modes:        slices.Clone(modes), // as the session's surface names them
		DefaultModel: "default", DefaultMode: "default", Skills: "native", Instructions: true, SystemPrompt: true, ReportsCost: true,
		OutputSchema: true, TurnBudget: true,
		TestedVersions: TestedVersions,
		Notes:          "permissions are allow/deny per call inside claude; hub remembers always-allow/always-reject per tool for the session",
	}
}

func (a *Adapter) Start(ctx context.Context, opts adapters.SessionOptions) (adapters.Session, error) {
	opts.Model = cmp.Or(opts.Model, a.model)
	opts.Mode = cmp.Or(opts.Mode, a.mode)
	args, untrusted, noProject := config.SettingSources(a.args(opts), opts.Cwd, ".claude", a.TrustProject)
	p, err := proc.Start(context.WithoutCancel(ctx), proc.Spec{Path: a.argv[0], Args: args, Dir: opts.Cwd, Env: a.environ(opts)})
	if err != nil {
		return nil, adapters.StartError(err)
	}
	s := newSession(a, p, opts)
	s.start = trace.From(ctx)
	if len(untrusted) > 0 {
		memory := map[bool]string{true: " (and so without the project's CLAUDE.md)"}[noProject]
		s.notice = config.LeftOut("claude", untrusted, memory, "allow tools, run hooks and start MCP servers", opts.Cwd)
	}
	go s.readLoop()
	s.sendInitialize()
	if opts.ResumeID != "" {
		s.askRestoredCost()
	}
	return s, nil
}

// args builds claude's argv after the program name.
func (a *Adapter) args(opts adapters.SessionOptions) []string {
	args := append(slices.Clone(a.argv[1:]), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio")
	args = adapters.AppendFlags(args, "--model", chosen(opts.Model), "--permission-mode", chosen(opts.Mode),
		"--effort", chosen(opts.Options[adapters.OptionEffort]))
	if opts.ResumeID != "" {
		args = append(args, "--resume", opts.ResumeID)
		if opts.Fork {
			args = append(args, "--fork-session")
		}
	}
	if len(opts.MCPServers) > 0 {
		args = append(args, "--mcp-config", mcpConfig(opts.MCPServers))
	}
	args = adapters.AppendFlags(args, "--system-prompt", opts.SystemPrompt, "--append-system-prompt", opts.Instructions,
		"--disallowed-tools", strings.Join(append(disallowedTools(opts.Tools), movingTools...), ","), "--json-schema", string(opts.OutputSchema))
	if opts.MaxTurns > 0 {
		args = append(args, "--max-turns", strconv.Itoa(opts.MaxTurns))
	}
	for _, d := range append(slices.Clone(opts.AddDirs), opts.SkillDirs...) {
		args = append(args, "--add-dir", d)
	}
	return args
}

// chosen is a setting's value for claude: "" for "default", claude's own choice.
func chosen(v string) string {
	if v == "default" {
		return ""
	}
	return v
}

// mcpConfig renders editor MCP servers in claude's --mcp-config JSON shape.
func mcpConfig(servers []adapters.MCPServer) string {
	type entry struct {
		Type    string            `json:"type"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	m := map[string]entry{}
	for _, s := range servers {
		m[s.Name] = entry{Type: cmp.Or(s.Type, "stdio"), Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": m}) // strings, and lists and maps of them
	return string(b)
}

// keepCwd makes claude's Bash tool return to the session's directory after
// every command. hub reads each command's paths from that directory: a
// `cd .git` kept for the next call would make `echo x > hooks/pre-commit`
// look like a write outside .git. Set last, so no configured env undoes it.
const keepCwd = "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR"

// environ is the parent's environment without the markers of an enclosing
// claude session, plus config and session env.
func (a *Adapter) environ(opts adapters.SessionOptions) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "CLAUDECODE" || k == "CLAUDE_CODE_ENTRYPOINT" || k == "CLAUDE_CODE_SSE_PORT"
	})
	return adapters.Environ(env, a.env, opts.Env, map[string]string{keepCwd: "1"})
}

// quietRecord: claude records hub leaves raw on purpose, not news to warn about.
func quietRecord(source string) bool {
	return source == "claude:rate_limit_event" || strings.HasPrefix(source, "claude:system/hook_")
}
