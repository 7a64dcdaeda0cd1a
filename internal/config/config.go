// Package config loads hub's TOML configuration: the user file under the XDG
// config dir, then the project's .hub/config.toml files from the repository
// root down to the working directory, then flags on top.
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/hubdev/hub/internal/sandbox"
)

// ErrInvalid marks a config file hub could not use.
var ErrInvalid = errors.New("invalid config")

// Config is the merged configuration.
type Config struct {
	DefaultAgent string                    `toml:"default_agent"`
	Log          LogConfig                 `toml:"log"`
	Agents       map[string]AgentConfig    `toml:"agents"`
	Providers    map[string]ProviderConfig `toml:"providers"`
	Permissions  PermissionsConfig         `toml:"permissions"`
	ACP          ACPConfig                 `toml:"acp"`
	Fallback     FallbackConfig            `toml:"fallback"`
	// Transcripts writes every session's normalized Event stream as a
	// JSONL transcript in the state dir, for audit.
	Transcripts *bool `toml:"transcripts"`
	// Sandbox confines the native loop's bash tool.
	Sandbox SandboxConfig `toml:"sandbox"`
	// MCPServers are MCP servers the native loop uses in every session,
	// besides the editor's (an editor's server of the same name wins).
	MCPServers map[string]MCPServerConfig `toml:"mcp_servers"`
	// Hooks are commands run on session events, by event name
	// ([[hooks.PreToolUse]]); see internal/hooks.
	Hooks map[string][]HookConfig `toml:"hooks"`
	// Files lists the files that were read, in merge order.
	Files []string `toml:"-"`
	// Projects lists the project files that were read and whether each
	// is trusted; Ignored the keys hub dropped from the untrusted ones.
	Projects []ProjectFile `toml:"-"`
	Ignored  []Ignored     `toml:"-"`
	// UntrustedAgents names the agents an untrusted project file defines
	// with a command (not registered), by file; UntrustedDefault is the
	// default_agent such a file set, ignored.
	UntrustedAgents  map[string]string `toml:"-"`
	UntrustedDefault string            `toml:"-"`
	// NoStream turns streaming off for every provider profile: a run's
	// own choice (hub run --no-stream), never read from a file.
	NoStream bool `toml:"-"`
	// Cwd and TrustProject are where and how the config was loaded
	// (--trust-project), for the project files read later (personas).
	Cwd          string `toml:"-"`
	TrustProject bool   `toml:"-"`
	// Warnings are non-fatal problems (unknown keys) worth a log line.
	Warnings []string `toml:"-"`
}

// FallbackConfig is [fallback]: when the next agent of a fallback list
// takes a turn over.
type FallbackConfig struct {
	// ProviderTimeout is how long a provider may keep failing (5xx,
	// overloaded, rate-limited) through the agent's own retries ("30s").
	ProviderTimeout Duration `toml:"provider_timeout"`
}

// ACPConfig tunes `hub acp`.
type ACPConfig struct {
	// WarmAgents caps the agents started ahead of a prompt and kept up
	// while idle; 0 turns warm starts off. Unset means hub's default.
	WarmAgents *int `toml:"warm_agents"`
	// IdleTimeout closes an agent no prompt used for that long ("30m",
	// "0" for never); the next prompt resumes it.
	IdleTimeout Duration `toml:"idle_timeout"`
	// Agents pins the agents the editor's agent select lists, in order.
	Agents []string `toml:"agents"`
	// MaxMessageMB bounds one message from the editor (default 64).
	MaxMessageMB int `toml:"max_message_mb"`
	// MaxPromptMB bounds one prompt's content (default 8).
	MaxPromptMB int `toml:"max_prompt_mb"`
	// Delegation hands each session's agent hub's delegate tool (an MCP
	// server), so it can run other agents through hub.
	Delegation *bool `toml:"delegation"`
	// DelegationDepth bounds how deep delegates may delegate (default 1).
	DelegationDepth int `toml:"delegation_depth"`
}

// SandboxConfig is [sandbox]: how the native loop's bash tool is
// confined (internal/sandbox). An untrusted project file may only narrow
// it: a stricter mode, network = false.
type SandboxConfig struct {
	// Mode is "workspace-write" (default), "read-only" or "off".
	Mode string `toml:"mode"`
	// Network lets sandboxed commands reach the network (default false).
	Network *bool `toml:"network"`
}

// Policy is the sandbox policy [sandbox] sets (Parse checked the mode).
func (s SandboxConfig) Policy() sandbox.Policy {
	m, _ := sandbox.ParseMode(s.Mode)
	return sandbox.Policy{Mode: m, Network: s.Network != nil && *s.Network}
}

// MCPServerConfig is one [mcp_servers.NAME] entry: a command (stdio) or
// a url (streamable HTTP).
type MCPServerConfig struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	// Disabled keeps an entry of an earlier file from starting.
	Disabled bool `toml:"disabled"`
}

// HookConfig is one [[hooks.EVENT]] entry: a shell command run on the
// event, for tool events only when Matcher (a regular expression) finds
// the tool's name or kind.
type HookConfig struct {
	Command string   `toml:"command"`
	Matcher string   `toml:"matcher"`
	Timeout Duration `toml:"timeout"`
}

// HookEvents are the events a hook may be configured for, in the order a
// turn meets them.
var HookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}

// checkHooks reports a hook hub cannot run: an unknown event, no command,
// or a matcher that is not a regular expression. A matcher on an event
// without a tool only draws a warning.
func (c *Config) checkHooks() (warnings []string, err error) {
	for _, ev := range slices.Sorted(maps.Keys(c.Hooks)) {
		if !slices.Contains(HookEvents, ev) {
			return nil, fmt.Errorf("key hooks.%s: not a hook event (use one of %s)", ev, strings.Join(HookEvents, ", "))
		}
		for i, h := range c.Hooks[ev] {
			key := fmt.Sprintf("hooks.%s[%d]", ev, i)
			if strings.TrimSpace(h.Command) == "" {
				return nil, fmt.Errorf("key %s.command: a hook needs a command", key)
			}
			if _, err := regexp.Compile(h.Matcher); err != nil {
				return nil, fmt.Errorf("key %s.matcher: %q is not a regular expression: %w", key, h.Matcher, err)
			}
			if h.Matcher != "" && ev != "PreToolUse" && ev != "PostToolUse" { // events without a tool
				warnings = append(warnings, fmt.Sprintf("%s.matcher ignored: only PreToolUse and PostToolUse hooks match a tool", key))
			}
		}
	}
	return warnings, nil
}

// AuditDir is where every session's transcript goes when transcripts =
// true (TranscriptDir); "" when it is off.
func (c *Config) AuditDir() string {
	if c.Transcripts == nil || !*c.Transcripts {
		return ""
	}
	return TranscriptDir()
}

// Fallbacks are each agent's fallback list, as hub acp and hub mcp take them.
func (c *Config) Fallbacks() map[string][]string {
	out := map[string][]string{}
	for name, ac := range c.Agents {
		out[name] = ac.Fallback
	}
	return out
}

// Duration is a TOML string such as "90s" or "30m".
type Duration struct {
	time.Duration
	Set bool
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b)) // "0" needs no unit
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"30m\" or \"90s\"", b)
	}
	d.Duration, d.Set = v, true
	return nil
}

// LogConfig sets logging defaults (flags and HUB_LOG win).
type LogConfig struct {
	Level string `toml:"level"`
	File  string `toml:"file"`
}

// AgentConfig configures one agent. The shape mirrors Zed's and JetBrains'
// agent_servers entries (command, args, env) so users can paste them.
type AgentConfig struct {
	// Protocol selects the adapter for custom agents: "acp" for any ACP
	// agent, also under a built-in name (e.g. claude through an ACP bridge).
	// Empty means the built-in adapter of that name, else ACP.
	Protocol string `toml:"protocol"`
	// Type is Zed's agent_servers "type"; only "custom" (or none) can run,
	// and "replay" plays Script (a test agent, never registered otherwise).
	Type string `toml:"type"`
	// Script is the replay agent's script.
	Script string `toml:"script"`
	// Command is the program, or the whole argv as an array.
	Command Command           `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Model   string            `toml:"model"`
	Mode    string            `toml:"mode"`
	// Disabled hides the agent from the registry; enabled = false says
	// the same (Parse folds it into Disabled).
	Disabled bool  `toml:"disabled"`
	Enabled  *bool `toml:"enabled"`
	// Options are adapter-specific settings.
	Options map[string]any `toml:"options"`
	// Fallback are the agents hub run tries in turn when this one cannot
	// do the work (not installed, not logged in, rate-limited, crashed)
	// before any tool call started.
	Fallback []string `toml:"fallback"`
}

// TypeReplay is the agent type of the scripted test agent.
const TypeReplay = "replay"

// IsACP reports whether the entry is an ACP agent hub should start:
// protocol = "acp", or a pasted Zed/JetBrains agent_servers entry (a command,
// type "custom" or none) under a name no built-in adapter has.
func (a AgentConfig) IsACP(builtinName bool) bool {
	if a.Disabled || len(a.Command) == 0 {
		return false
	}
	if a.Protocol == "acp" {
		return true
	}
	return a.Protocol == "" && !builtinName && (a.Type == "" || a.Type == "custom")
}

// Over returns a laid over base field by field: each field a sets wins
// and env merges with a's values winning. A command array of more than one
// element is a whole argv, so it drops base's args unless a sets its own.
func (a AgentConfig) Over(base AgentConfig) AgentConfig {
	out := overlay(a, base)
	if len(a.Command) == 0 {
		out.Command = base.Command
	} else if len(a.Command) > 1 && a.Args == nil {
		out.Args = nil
	}
	if a.Options != nil { // options are the adapter's whole settings: replaced, not merged
		out.Options = a.Options
	}
	return out
}

// overlay returns base with the fields src sets laid over it: a field that
// is not zero wins, and a map that is not empty merges with src's values
// winning.
func overlay[T any](src, base T) T {
	out := base
	o, s := reflect.ValueOf(&out).Elem(), reflect.ValueOf(src)
	for i := range s.NumField() {
		f, dst := s.Field(i), o.Field(i)
		switch {
		case f.IsZero() || f.Kind() == reflect.Map && f.Len() == 0:
		case f.Kind() == reflect.Map:
			m := reflect.MakeMapWithSize(f.Type(), dst.Len()+f.Len())
			for _, from := range []reflect.Value{dst, f} {
				for it := from.MapRange(); it.Next(); {
					m.SetMapIndex(it.Key(), it.Value())
				}
			}
			dst.Set(m)
		default:
			dst.Set(f)
		}
	}
	return out
}

// Argv returns the full argv: Command followed by Args.
func (a AgentConfig) Argv() []string {
	return append(append([]string{}, a.Command...), a.Args...)
}

// ArgvOr is Argv, or program (an agent's default program and its leading
// args) followed by Args when the entry sets no command.
func (a AgentConfig) ArgvOr(program ...string) []string {
	if len(a.Command) > 0 {
		return a.Argv()
	}
	return append(slices.Clone(program), a.Args...)
}

// Option is the string option key, "" when it is unset or not a string.
func (a AgentConfig) Option(key string) string {
	s, _ := a.Options[key].(string)
	return s
}

// Command is an argv. In TOML it is a string (one program path, as in Zed's
// settings) or an array of strings.
type Command []string

// UnmarshalTOML accepts a string or an array of strings.
func (c *Command) UnmarshalTOML(v any) error {
	x, ok := v.([]any)
	if !ok {
		x = []any{v} // one program path, or a value the loop refuses
	}
	*c = make(Command, 0, len(x))
	for _, e := range x {
		s, ok := e.(string)
		if !ok {
			return fmt.Errorf("command must be a string or an array of strings, found %T", e)
		}
		*c = append(*c, s)
	}
	return nil
}

// ProviderConfig is an OpenAI-compatible endpoint profile for the native loop.
type ProviderConfig struct {
	Preset    string            `toml:"preset"`
	BaseURL   string            `toml:"base_url"`
	Model     string            `toml:"model"`
	APIKeyEnv string            `toml:"api_key_env"`
	Headers   map[string]string `toml:"headers"`
	// Quirks
	OmitTemperature bool     `toml:"omit_temperature"`
	OmitToolChoice  bool     `toml:"omit_tool_choice"`
	MaxTokensField  string   `toml:"max_tokens_field"` // "max_tokens" or "max_completion_tokens"
	MaxTokens       int      `toml:"max_tokens"`
	Temperature     *float64 `toml:"temperature"`
	Vision          *bool    `toml:"vision"`
	ContextWindow   int      `toml:"context_window"`
	MaxTurnRequests int      `toml:"max_turn_requests"`
	Stream          *bool    `toml:"stream"`
	AzureAPIVersion string   `toml:"azure_api_version"`
	// JSONSchema says the endpoint takes response_format json_schema (hub
	// run --output-schema); without it the schema goes in the prompt.
	JSONSchema *bool `toml:"json_schema"`
}

// Over returns p laid over base field by field, as AgentConfig.Over does:
// each field p sets wins, headers merge with p's values winning.
func (p ProviderConfig) Over(base ProviderConfig) ProviderConfig { return overlay(p, base) }

// PermissionsConfig holds rules for the native loop's permission service.
type PermissionsConfig struct {
	Rules []PermissionRule `toml:"rules"`
	// Grants is where an "always allow" the user picks in the editor may
	// be kept beyond the session: "project" (the default: this project),
	// "user" (every project) or "session" (never kept; no durable option).
	Grants string `toml:"grants"`
	// GrantDays is how long a kept grant lasts (default DefaultGrantDays).
	GrantDays int `toml:"grant_days"`
}

// Where durable grants apply (permissions.grants).
const (
	GrantsSession = "session"
	GrantsProject = "project"
	GrantsUser    = "user"
)

// DefaultGrantDays is how long a kept "always allow" lasts by default.
const DefaultGrantDays = 7

// GrantScope is permissions.grants with its default: project.
func (p PermissionsConfig) GrantScope() string {
	return cmp.Or(strings.ToLower(strings.TrimSpace(p.Grants)), GrantsProject)
}

// GrantLifetime is permissions.grant_days as a duration, with its default.
func (p PermissionsConfig) GrantLifetime() time.Duration {
	return time.Duration(cmp.Or(max(p.GrantDays, 0), DefaultGrantDays)) * 24 * time.Hour
}

// check reports a rule hub could not apply.
func (r PermissionRule) check() error {
	if !slices.Contains([]string{"allow", "ask", "deny"}, strings.ToLower(strings.TrimSpace(r.Decision))) {
		return fmt.Errorf("decision %q must be allow, ask or deny", r.Decision)
	}
	if r.Tool == "" && r.Path == "" && r.Command == "" {
		return errors.New("it names no tool, path or command")
	}
	return nil
}

// PermissionRule matches a tool plus a path glob or command prefix.
type PermissionRule struct {
	Tool     string `toml:"tool"`
	Path     string `toml:"path"`
	Command  string `toml:"command"`
	Decision string `toml:"decision"` // allow | ask | deny
}

// UserPath returns the user config file path.
func UserPath() string { return filepath.Join(UserDir(), "config.toml") }

// UserDir returns hub's user config dir.
func UserDir() string { return hostDirs().Config }

// StateDir returns hub's state dir (session index).
func StateDir() string { return hostDirs().State }

// TranscriptDir holds the JSONL session transcripts (internal/transcript).
func TranscriptDir() string { return filepath.Join(StateDir(), "transcripts") }

// CacheDir returns hub's cache dir (doctor's report).
func CacheDir() string { return hostDirs().Cache }

// ProjectPath returns the project config file of the directory dir.
func ProjectPath(dir string) string { return filepath.Join(dir, ".hub", "config.toml") }

// ProjectDirs returns cwd and its parents up to the repository root (the
// nearest directory holding .git) or the filesystem root, nearest first:
// the directories whose .hub and .agents folders apply to cwd, as git
// finds its repository from a subdirectory.
func ProjectDirs(cwd string) []string {
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	var dirs []string
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil || filepath.Dir(dir) == dir {
			return dirs
		}
	}
}

// ProjectFile is a project config file and whether the user trusts it.
type ProjectFile struct {
	Path    string `json:"path"`
	Trusted bool   `json:"trusted"`
}

// LoadTrusting reads the user file, then the project files of cwd's
// ProjectDirs from the outermost in, so the nearest wins; missing files are
// fine. An explicit path (from --config) replaces the user file and must
// exist. trustProject trusts the project files for this run
// (--trust-project) whatever the trust store says.
func LoadTrusting(cwd, explicit string, trustProject bool) (*Config, error) {
	c := &Config{Agents: map[string]AgentConfig{}, Providers: map[string]ProviderConfig{}, UntrustedAgents: map[string]string{},
		Hooks: map[string][]HookConfig{}, MCPServers: map[string]MCPServerConfig{}, Cwd: cwd, TrustProject: trustProject}
	if err := c.mergeFile(cmp.Or(explicit, UserPath()), explicit != "", false); err != nil {
		return nil, err
	}
	for _, dir := range slices.Backward(ProjectDirs(cwd)) {
		if err := c.mergeFile(ProjectPath(dir), false, true); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// mergeFile merges one file; a project file is trusted for the run or as the trust store says.
func (c *Config) mergeFile(path string, mustExist, project bool) error {
	data, err := ReadProjectFile(path)
	if errors.Is(err, os.ErrNotExist) && !mustExist {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err) // err names the file
	}
	f, err := Parse(path, data)
	if err != nil {
		return err
	}
	trusted := !project || c.TrustProject || IsTrusted(path, data)
	if project {
		abs, _ := filepath.Abs(path)
		c.Projects = append(c.Projects, ProjectFile{Path: abs, Trusted: trusted})
	}
	c.Warnings = append(c.Warnings, f.Warnings...)
	if !trusted {
		c.restrict(f, path)
		c.narrowSandbox(f, path)
		c.narrowAgents(f, path)
	}
	c.merge(f)
	c.Files = append(c.Files, path)
	return nil
}

// merge lays a later file (an untrusted one restricted first) over what
// the earlier ones set.
func (c *Config) merge(f *Config) {
	for k, v := range f.Providers {
		c.Providers[k] = v.Over(c.Providers[k])
	}
	for ev, hs := range f.Hooks { // after those of earlier files
		c.Hooks[ev] = append(c.Hooks[ev], hs...)
	}
	maps.Copy(c.MCPServers, f.MCPServers)
	c.DefaultAgent = cmp.Or(f.DefaultAgent, c.DefaultAgent)
	c.Transcripts = cmp.Or(f.Transcripts, c.Transcripts)
	for k, v := range f.Agents {
		c.Agents[k] = v.Over(c.Agents[k])
	}
	rules := append(c.Permissions.Rules, f.Permissions.Rules...)
	c.Log, c.Sandbox, c.ACP, c.Fallback = overlay(f.Log, c.Log), overlay(f.Sandbox, c.Sandbox), overlay(f.ACP, c.ACP), overlay(f.Fallback, c.Fallback)
	c.Permissions = overlay(f.Permissions, c.Permissions)
	c.Permissions.Rules = rules
}

// Parse decodes one file's bytes; path is used only in messages.
func Parse(path string, data []byte) (*Config, error) {
	var f Config
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, describe(path, data, err)
	}
	more, err := f.check()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, path, err)
	}
	for _, k := range md.Undecoded() {
		if !slices.ContainsFunc(k, func(s string) bool { return s == "options" || s == "env" || s == "headers" }) {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s: unknown key %q ignored", path, k.String()))
		}
	}
	for _, w := range more {
		f.Warnings = append(f.Warnings, path+": "+w)
	}
	return &f, nil
}

// check reports the first setting of one file hub cannot use, and warns of
// those it ignores; it folds an agent's enabled = false into Disabled.
func (f *Config) check() (warnings []string, err error) {
	if warnings, err = f.checkHooks(); err != nil {
		return nil, err
	}
	switch p := f.Permissions; {
	case !slices.Contains([]string{GrantsSession, GrantsProject, GrantsUser}, p.GrantScope()):
		return nil, fmt.Errorf("key permissions.grants: %q must be session, project or user", p.Grants)
	case p.GrantDays < 0:
		return nil, fmt.Errorf("key permissions.grant_days: %d must be a positive number of days", p.GrantDays)
	}
	// A negative size or depth means hub's default, as an unset one does.
	f.ACP.MaxMessageMB, f.ACP.MaxPromptMB, f.ACP.DelegationDepth = max(f.ACP.MaxMessageMB, 0), max(f.ACP.MaxPromptMB, 0), max(f.ACP.DelegationDepth, 0)
	if _, err := sandbox.ParseMode(f.Sandbox.Mode); err != nil {
		return nil, fmt.Errorf("key sandbox.mode: %w", err)
	}
	for i, r := range f.Permissions.Rules {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("permissions.rules[%d] (tool %q, path %q, command %q): %w; every rule must be valid, or none would hold",
				i, r.Tool, r.Path, r.Command, err)
		}
	}
	for _, name := range f.AgentNames() {
		a := f.Agents[name]
		a.Disabled = a.Disabled || a.Enabled != nil && !*a.Enabled
		f.Agents[name] = a
		switch {
		case a.Protocol != "" && a.Protocol != "acp":
			return nil, fmt.Errorf("key agents.%s.protocol: %q is not a protocol hub speaks (use \"acp\", or leave it out for a built-in agent)", name, a.Protocol)
		case len(a.Command) == 0 && a.Protocol == "acp":
			return nil, fmt.Errorf("key agents.%s.command: an acp agent needs a command", name)
		case a.Type != "" && a.Type != "custom" && a.Type != TypeReplay:
			warnings = append(warnings, fmt.Sprintf("agents.%s: type %q is a Zed registry/extension entry hub cannot start; give it a command (type \"custom\")", name, a.Type))
		}
	}
	return warnings, nil
}

func describe(path string, data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := strings.TrimSpace(pe.Message)
		line := pe.Position.Line
		// The parser counts the newline that ends a line as the next one;
		// the line is the one that holds the offending byte.
		if off := pe.Position.Start; off >= 0 && off < len(data) {
			line = bytes.Count(data[:off], []byte("\n")) + 1
		}
		if pe.LastKey != "" {
			return fmt.Errorf("%w: %s:%d: key %s: %s", ErrInvalid, path, line, pe.LastKey, msg)
		}
		return fmt.Errorf("%w: %s:%d: %s", ErrInvalid, path, line, msg)
	}
	return fmt.Errorf("%w: %s: %s", ErrInvalid, path, strings.ReplaceAll(err.Error(), "\n", " "))
}

// AgentNames returns configured agent names, sorted.
func (c *Config) AgentNames() []string {
	return slices.Sorted(maps.Keys(c.Agents))
}
