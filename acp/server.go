package acp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/bestof"
	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/trace"
	"github.com/hubdev/hub/internal/transcript"
)

// SkillSource supplies slash commands (Agent Skills) for a project.
type SkillSource interface {
	Commands(cwd string) []adapters.Command
	Expand(cwd, name, args string) (prompt string, ok bool)
}

type Options struct {
	Registry *adapters.Registry
	// DefaultAgent is the agent of new sessions ("": claude, else the first that can run).
	DefaultAgent string
	Logger       zerolog.Logger
	// StateDir holds the session index; "" keeps the index in memory.
	StateDir string
	// TranscriptDir, when set, gets each session's Event stream as a JSONL transcript.
	TranscriptDir string
	// Skills may be nil.
	Skills SkillSource
	// Fallback lists, per agent, the agents that take over a turn it could not do.
	Fallback map[string][]string
	// ProviderTimeout bounds how long a provider may keep failing before the
	// fallback agent takes the turn over (0: conversation.DefaultProviderTimeout).
	ProviderTimeout time.Duration
	// AgentInfo is reported by initialize; Name defaults to "hub".
	AgentInfo schema.Implementation
	// CancelGrace bounds how long a cancelled turn may take before the
	// prompt is answered "cancelled" anyway (default 2s).
	CancelGrace time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// WarmAgents caps the agents started ahead of a prompt and kept up
	// while idle (default DefaultWarmAgents; negative: no warm starts).
	WarmAgents int
	// IdleTimeout closes an agent no prompt used for this long; the next
	// prompt resumes it (default DefaultIdleTimeout; negative: never).
	IdleTimeout time.Duration
	// Agents pins the agents the agent select offers, in order (nil: all that can run).
	Agents []string
	// Model and Mode are the settings of new sessions ("" = the agent's).
	Model, Mode string
	// MaxLine bounds one message from the editor, in bytes (default
	// jsonrpc.DefaultMaxLine); a longer one is refused and the connection goes on.
	MaxLine int
	// MaxPrompt bounds a prompt's content in bytes (default
	// DefaultMaxPrompt); a larger one is refused with invalid params.
	MaxPrompt int
	// Grants is the durable grant store; nil keeps "always allow" answers
	// for the session only (as does Permissions.Grants = "session").
	Grants *permission.Grants
	// Broken, when set, is why hub cannot serve sessions (an invalid
	// config): initialize answers, every session request fails with it.
	Broken error
	// AuthMethods are the terminal logins offered to a client that can run
	// them (offeredAuth); nil offers none.
	AuthMethods func() []schema.AuthMethod
	// Self is hub's executable, which agents start as their MCP server
	// `hub mcp` when the session delegates; "" turns delegation off.
	Self string
	// Delegation is the delegation option of new sessions ([acp] delegation).
	Delegation bool
	// DelegationDepth bounds how deep delegates may delegate (default 1:
	// the session's agent may, its delegates may not).
	DelegationDepth int
	// Candidate runs one /compare candidate (hub run's: runner.Candidate);
	// nil turns /compare off.
	Candidate func(context.Context, bestof.CandidateRun) bestof.CandidateResult
	// Settings loads what a session takes from the config that applies in its
	// cwd (untrusted project files filtered); nil: no rules, hooks or notice.
	Settings func(cwd string) (Settings, error)
}

// Settings are what a session takes from the configuration of its cwd.
type Settings struct {
	// Permissions are the rules every relayed permission request goes through.
	Permissions config.PermissionsConfig
	// Hooks observe the Event stream of an agent that does not run hooks itself.
	Hooks *hooks.Runner
	// HookConfig is what Hooks runs, for the agents that run hooks
	// themselves (the native loop); nil leaves them their own.
	HookConfig map[string][]config.HookConfig
	// Notice is said once as the session opens (e.g. the project config keys hub ignored).
	Notice string
	// Registry is hub's agents with the personas visible from this cwd in place
	// of the launch directory's (nil: Options.Registry).
	Registry *adapters.Registry
}

// settingsFor loads the settings of a session in cwd; a project config
// there that hub cannot use fails the session with its reason.
func (s *server) settingsFor(cwd string) (Settings, error) {
	if s.opts.Settings == nil {
		return Settings{}, nil
	}
	set, err := s.opts.Settings(cwd)
	if err != nil {
		return Settings{}, jsonrpc.NewError(schema.CodeInternalError, err.Error(), map[string]any{"code": "config"})
	}
	return set, nil
}

// Serve runs an ACP agent over in/out until in reaches EOF or ctx ends,
// then closes every session (stopping agent processes).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	s := newServer(opts)
	s.conn = jsonrpc.New(in, out, jsonrpc.Options{Request: s.handle, Notify: s.handleNotification, Logger: s.log, Strict: true, MaxLine: opts.MaxLine, LineLimit: s.lineLimit,
		CancelMethod: "$/cancel_request"})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	err := s.conn.Serve(ctx)
	s.closeAll()
	s.closeBridge()
	cancel()
	s.starts.Wait() // a start that ends now closes its agent itself
	s.detached.Wait()
	s.conn.Wait()
	return err
}

type server struct {
	opts  Options
	log   zerolog.Logger
	conn  *jsonrpc.Conn
	ctx   context.Context
	index *Store

	peer     atomic.Pointer[peer] // nil until initialize
	mu       sync.Mutex
	sessions map[string]*session
	warm     *conversation.Warm
	starts   sync.WaitGroup // agent starts in flight
	detached sync.WaitGroup // turns steering queued, which answer no request
	ready    readiness

	bridgeMu    sync.Mutex
	delegBridge *delegation.Bridge // the delegation socket, opened on first use
	bridgeErr   error
}

// peer is what initialize settled: the client's capabilities, the prompt
// blocks hub advertised, and the auth methods offered.
type peer struct {
	caps   schema.ClientCapabilities
	prompt schema.PromptCapabilities
	auth   []schema.AuthMethod
}

func newServer(opts Options) *server {
	opts.Registry = cmp.Or(opts.Registry, adapters.NewRegistry())
	opts.AgentInfo.Name = cmp.Or(opts.AgentInfo.Name, "hub")
	opts.AgentInfo.Version = cmp.Or(opts.AgentInfo.Version, "dev")
	opts.WarmAgents, opts.IdleTimeout = cmp.Or(opts.WarmAgents, DefaultWarmAgents), cmp.Or(opts.IdleTimeout, DefaultIdleTimeout)
	opts.CancelGrace = cmp.Or(max(opts.CancelGrace, 0), 2*time.Second)
	opts.MaxPrompt = cmp.Or(max(opts.MaxPrompt, 0), DefaultMaxPrompt)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &server{opts: opts, log: opts.Logger, index: OpenStore(opts.StateDir), sessions: map[string]*session{},
		warm: &conversation.Warm{Limit: opts.WarmAgents, Idle: opts.IdleTimeout}}
}

// defaultAgent is the configured agent of new sessions, else claude if it
// can run here, else the first agent that can.
func (s *server) defaultAgent() string {
	if s.opts.DefaultAgent == "" {
		for _, n := range append([]string{"claude"}, s.opts.Registry.Names()...) {
			if a, err := s.opts.Registry.Get(n); err == nil && s.ready.check(a) == nil {
				return n
			}
		}
	}
	name, _ := DefaultAgent(s.opts.Registry, s.opts.DefaultAgent)
	return name
}

// DefaultAgent is the agent new sessions use when name is configured:
// name if the registry knows it (known is then true), else claude, else
// the first registered agent.
func DefaultAgent(r *adapters.Registry, name string) (agent string, known bool) {
	names := r.Names()
	switch {
	case name != "" && slices.Contains(names, name):
		return name, true
	case slices.Contains(names, "claude"):
		return "claude", false
	case len(names) > 0:
		return names[0], false
	}
	return name, false
}

func (s *server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range all {
		wg.Go(ss.close)
	}
	wg.Wait()
}

// lookup is the live session id names (an id decode checked).
func (s *server) lookup(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[id]; ok {
		return ss, nil
	}
	return nil, errUnknownSession(id)
}

func errUnknownSession(id string) *jsonrpc.Error {
	return jsonrpc.NewError(schema.CodeResourceNotFound, "Resource not found: unknown session "+id, map[string]any{"sessionId": id})
}

func invalidParams(format string, a ...any) *jsonrpc.Error {
	return jsonrpc.NewError(schema.CodeInvalidParams, "Invalid params: "+fmt.Sprintf(format, a...), nil)
}

// decode strictly parses params; missing params count as {}. A required
// sessionId must be one hub could have made, before anything looks it up
// or touches a file.
func decode(params json.RawMessage, v any, required ...string) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("%v", err)
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(params, &m)
	for _, k := range required {
		if v, ok := m[k]; !ok || string(v) == "null" {
			return invalidParams("missing %q", k)
		}
	}
	var id string
	if slices.Contains(required, "sessionId") && json.Unmarshal(m["sessionId"], &id) == nil {
		if err := checkID(id); err != nil {
			return invalidParams("%v", err)
		}
	}
	return nil
}

func fail(err error) jsonrpc.Job { return func() (any, func(), error) { return nil, nil, err } }

// handle runs in the read loop and hands the request to its method.
func (s *server) handle(ctx context.Context, r *jsonrpc.Request) jsonrpc.Job {
	m, ok := methods[r.Method]
	switch {
	case !ok:
		return fail(jsonrpc.NewError(schema.CodeMethodNotFound, "Method not found", map[string]any{"method": r.Method}))
	case r.Method == "initialize":
	case s.peer.Load() == nil:
		return fail(jsonrpc.NewError(schema.CodeInvalidRequest, "Invalid request: initialize first", nil))
	case s.opts.Broken != nil && r.Method != "authenticate":
		return fail(jsonrpc.NewError(schema.CodeInternalError, s.opts.Broken.Error(), map[string]any{"code": "config"}))
	}
	return m(s, ctx, r.Params)
}

// ordered makes a session's mode/config changes and prompt starts take
// effect in the order they arrived, though each runs on its own goroutine:
// a client may pipeline set_config_option and session/prompt. (A prompt
// passes the order on once its turn runs; see beginPrompt.)
func ordered(m method) method {
	return func(s *server, ctx context.Context, params json.RawMessage) jsonrpc.Job {
		j := m(s, ctx, params)
		ss, err := s.sessionOf(params)
		if err != nil {
			return j
		}
		prev, done := ss.turns.Order()
		return func() (any, func(), error) {
			<-prev
			defer done()
			return j()
		}
	}
}

func (s *server) sessionOf(params json.RawMessage) (*session, error) {
	var p schema.SessionIDRequest
	if err := decode(params, &p, "sessionId"); err != nil {
		return nil, err
	}
	return s.lookup(p.SessionID)
}

// method serves one request: it runs in the read loop and returns the job
// that answers it.
type method func(s *server, ctx context.Context, params json.RawMessage) jsonrpc.Job

// inline is the method of a handler of typed params (decoded strictly,
// with the members named required present) that acts in the read loop, so
// later messages (e.g. session/cancel) see its effect.
func inline[P any](h func(*server, context.Context, P) jsonrpc.Job, required ...string) method {
	return func(s *server, ctx context.Context, params json.RawMessage) jsonrpc.Job {
		var p P
		if err := decode(params, &p, required...); err != nil {
			return fail(err)
		}
		return h(s, ctx, p)
	}
}

// on is inline for a handler that runs in the job.
func on[P any](h func(*server, context.Context, P) (any, func(), error), required ...string) method {
	return inline(func(s *server, ctx context.Context, p P) jsonrpc.Job {
		return func() (any, func(), error) { return h(s, ctx, p) }
	}, required...)
}

var methods = map[string]method{
	"initialize":                inline((*server).initialize, "protocolVersion"),
	"authenticate":              on((*server).authenticate, "methodId"),
	"session/new":               on((*server).newSession, "cwd"),
	"session/load":              on(reopen(true), "sessionId", "cwd"),
	"session/resume":            on(reopen(false), "sessionId", "cwd"),
	"session/close":             on((*server).closeSession, "sessionId"),
	"session/list":              on((*server).listSessions),
	"session/delete":            on((*server).deleteSession, "sessionId"),
	"session/prompt":            inline((*server).beginPrompt, "sessionId", "prompt"),
	"session/set_mode":          ordered(on((*server).setMode, "sessionId", "modeId")),
	"session/set_config_option": ordered(on((*server).setConfigOption, "sessionId", "configId", "value")),
	"_session/steering":         on((*server).steer, "sessionId", "prompt"),
	"session/fork":              on((*server).forkSession, "sessionId", "cwd"),
}

// handleNotification serves session/cancel, the one notification ACP sends an agent.
func (s *server) handleNotification(r *jsonrpc.Request) {
	if r.Method != "session/cancel" {
		s.log.Debug().Str("method", r.Method).Msg("notification ignored")
	} else if ss, err := s.sessionOf(r.Params); err == nil {
		ss.cancel()
	}
}

func (s *server) initialize(_ context.Context, p schema.InitializeRequest) jsonrpc.Job {
	caps := s.agentCapabilities()
	methods := offeredAuth(p.ClientCapabilities, s.opts.AuthMethods)
	s.peer.Store(&peer{caps: p.ClientCapabilities, prompt: caps.PromptCapabilities, auth: methods})
	res := schema.InitializeResponse{
		ProtocolVersion:   schema.ProtocolVersion,
		AgentCapabilities: caps,
		AuthMethods:       methods,
		AgentInfo:         &schema.Implementation{Name: s.opts.AgentInfo.Name, Version: s.opts.AgentInfo.Version, Title: s.opts.AgentInfo.Title},
		Meta:              schema.Meta{"steering": map[string]any{"supported": true}},
	}
	return func() (any, func(), error) { return res, nil, nil }
}

// offeredAuth is the auth methods in the forms the client runs: type
// "terminal" only for auth.terminal (ACP allows it no other way),
// _meta["terminal-auth"] only for a client that advertised that key; a
// method the client can run in neither form is left out.
func offeredAuth(c schema.ClientCapabilities, all func() []schema.AuthMethod) []schema.AuthMethod {
	typed := c.Auth != nil && c.Auth.Terminal
	meta, _ := c.Meta[schema.TerminalAuthMeta].(bool)
	methods := []schema.AuthMethod{}
	if all == nil || !typed && !meta {
		return methods
	}
	for _, m := range all() {
		_, hasMeta := m.Meta[schema.TerminalAuthMeta]
		if !typed {
			m.Type, m.Args, m.Env = "", nil, nil
		}
		if !meta || !hasMeta {
			m.Meta = nil
		}
		if m.Type == "" && m.Meta == nil {
			continue
		}
		methods = append(methods, m)
	}
	return methods
}

// agentCapabilities advertises prompt blocks and MCP transports as the default
// agent takes them: presets the user never picks must not hide images from
// claude users; a session switched to an agent without them gets a placeholder
// (session.fitContent).
func (s *server) agentCapabilities() schema.AgentCapabilities {
	var c adapters.Capabilities
	if a, err := s.opts.Registry.Get(s.defaultAgent()); err == nil {
		c = a.Capabilities()
	}
	return schema.AgentCapabilities{
		LoadSession:        true,
		PromptCapabilities: schema.PromptCapabilities{Image: c.Images, Audio: c.Audio, EmbeddedContext: true},
		McpCapabilities:    schema.McpCapabilities{HTTP: c.MCPHTTP},
		SessionCapabilities: schema.SessionCapabilities{List: &schema.Marker{}, Delete: &schema.Marker{}, Resume: &schema.Marker{}, Close: &schema.Marker{},
			AdditionalDirectories: &schema.Marker{}, Fork: &schema.Marker{}},
	}
}

func (s *server) authenticate(_ context.Context, p schema.AuthenticateRequest) (any, func(), error) {
	methods := s.peer.Load().auth
	if i := slices.IndexFunc(methods, func(m schema.AuthMethod) bool { return m.ID == p.MethodID }); i >= 0 {
		return nil, nil, invalidParams("auth method %q runs in a terminal: start 'hub acp %s' there", p.MethodID, strings.Join(methods[i].Args, " "))
	}
	return nil, nil, invalidParams("unknown auth method %q (log in with 'hub login AGENT' or the agent's own CLI)", p.MethodID)
}

// newID is n random bytes in hex: 12 after "hub_" make a session's id,
// 4 a /compare run's.
func newID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func checkCwd(cwd string) error {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return invalidParams("cwd must be an absolute path, got %q", cwd)
	}
	return nil
}

func checkDirs(cwd string, more []string) error {
	if err := checkCwd(cwd); err != nil {
		return err
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return invalidParams("cwd %q is not an existing directory", cwd)
	}
	if i := slices.IndexFunc(more, func(d string) bool { return !filepath.IsAbs(d) }); i >= 0 {
		return invalidParams("additionalDirectories must be absolute paths, got %q", more[i])
	}
	return nil
}

func (s *server) newSession(_ context.Context, p schema.NewSessionRequest) (any, func(), error) {
	if err := checkDirs(p.Cwd, p.AdditionalDirectories); err != nil {
		return nil, nil, err
	}
	rec := &Record{SessionID: "hub_" + newID(12), Agent: s.defaultAgent(), Cwd: p.Cwd, AddDirs: p.AdditionalDirectories,
		Model: s.opts.Model, Mode: s.opts.Mode, UpdatedAt: s.opts.Now()}
	ss, err := s.open(rec, p.McpServers)
	if err != nil {
		return nil, nil, err
	}
	_ = ss.save() // logged
	return schema.NewSessionResponse{SessionID: rec.SessionID, Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, ss.opened, nil
}

// open registers an in-memory session for rec.
func (s *server) open(rec *Record, mcp []schema.McpServer) (*session, error) {
	set, err := s.settingsFor(rec.Cwd)
	if err != nil {
		return nil, err
	}
	if _, err := cmp.Or(set.Registry, s.opts.Registry).Get(rec.Agent); err != nil {
		return nil, jsonrpc.NewError(schema.CodeInternalError, fmt.Sprintf("agent %q unavailable: %v", rec.Agent, err), nil)
	}
	ss := &session{srv: s, rec: rec, set: set, mcp: s.convertMCP(mcp), seenTools: map[string]bool{}, hooks: map[bool]*hooks.Observer{},
		editor: &editorClient{conn: s.conn, log: s.log, sessionID: rec.SessionID, caps: s.peer.Load().caps, cwd: rec.Cwd}}
	ss.agent = ss.newAgent()
	if dir := s.opts.TranscriptDir; dir != "" {
		ss.audit = transcript.NewAudit(dir, transcript.Meta{ID: rec.SessionID, Agent: rec.Agent, Cwd: rec.Cwd}, func(err error) {
			s.log.Warn().Err(err).Str("session", rec.SessionID).Msg("session transcript not written")
		})
	}
	// The gate: the rules of its config, the durable grants when kept, the
	// editor for what they leave open.
	ss.gate, err = conversation.NewGate(conversation.GateOptions{Rules: set.Permissions, Grants: s.opts.Grants, Cwd: rec.Cwd,
		Answerer: conversation.AnswerFunc(func(ctx context.Context, q conversation.Question) conversation.Reply {
			return ss.askEditor(ctx, q, true)
		})})
	if err != nil {
		return nil, jsonrpc.NewError(schema.CodeInternalError, err.Error(), nil)
	}
	s.mu.Lock()
	old := s.sessions[rec.SessionID] // a session loaded again replaces its old self
	s.sessions[rec.SessionID] = ss
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
	return ss, nil
}

func (s *server) convertMCP(in []schema.McpServer) []adapters.MCPServer {
	out := []adapters.MCPServer{}
	for _, m := range in {
		switch m.Type {
		case "", "stdio":
			out = append(out, adapters.MCPServer{Name: m.Name, Type: "stdio", Command: m.Command, Args: m.Args, Env: pairs(m.Env)})
		case "http", "sse":
			out = append(out, adapters.MCPServer{Name: m.Name, Type: m.Type, URL: m.URL, Headers: pairs(m.Headers)})
		default:
			s.log.Warn().Str("server", m.Name).Str("type", m.Type).Msg("MCP server with unsupported transport skipped")
		}
	}
	return out
}

func pairs(in []schema.EnvVariable) map[string]string {
	out := map[string]string{}
	for _, e := range in {
		out[e.Name] = e.Value
	}
	return out
}

// reopen loads a session from the index into memory for load or resume;
// replay (load) sends its whole history before the answer.
func reopen(replay bool) func(*server, context.Context, schema.LoadSessionRequest) (any, func(), error) {
	return func(s *server, _ context.Context, p schema.LoadSessionRequest) (any, func(), error) {
		if err := checkDirs(p.Cwd, p.AdditionalDirectories); err != nil {
			return nil, nil, err
		}
		rec, err := s.index.Load(p.SessionID)
		if err != nil {
			return nil, nil, err
		}
		if rec == nil {
			return nil, nil, errUnknownSession(p.SessionID)
		}
		rec.Cwd, rec.AddDirs = p.Cwd, p.AdditionalDirectories
		hist := rec.History
		keep := hist[max(0, len(hist)-memHistory):]
		rec.History = slices.Clone(keep)
		ss, err := s.open(rec, p.McpServers)
		if err != nil {
			return nil, nil, err
		}
		ss.persisted, ss.dropped = len(keep), len(hist)-len(keep)
		for _, u := range hist {
			if replay {
				ss.send(u)
			}
		}
		return schema.LoadSessionResponse{Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, ss.opened, nil
	}
}

func (s *server) closeSession(_ context.Context, p schema.SessionIDRequest) (any, func(), error) {
	s.mu.Lock()
	ss := s.sessions[p.SessionID]
	delete(s.sessions, p.SessionID)
	s.mu.Unlock()
	if ss != nil {
		ss.close()
	}
	return struct{}{}, nil, nil
}

func (s *server) deleteSession(ctx context.Context, p schema.SessionIDRequest) (any, func(), error) {
	res, _, _ := s.closeSession(ctx, p)
	if err := s.index.Delete(p.SessionID); err != nil {
		return nil, nil, jsonrpc.NewError(schema.CodeInternalError, err.Error(), nil)
	}
	return res, nil, nil
}

func (s *server) listSessions(_ context.Context, p schema.ListSessionsRequest) (any, func(), error) {
	if err := checkCwd(p.Cwd); p.Cwd != "" && err != nil {
		return nil, nil, err
	}
	resp, err := s.index.List(p.Cwd, p.Cursor)
	return resp, nil, err
}

// beginPrompt validates and marks the session busy inline; the turn runs
// in the returned jsonrpc.Job.
func (s *server) beginPrompt(ctx context.Context, p schema.PromptRequest) jsonrpc.Job {
	if promptSize(p.Prompt) > s.opts.MaxPrompt {
		return fail(s.promptRefusal())
	}
	ss, err := s.lookup(p.SessionID)
	if err != nil {
		return fail(err)
	}
	caps := s.peer.Load().prompt
	for _, b := range p.Prompt {
		if (b.Type == schema.BlockImage && !caps.Image) || (b.Type == schema.BlockAudio && !caps.Audio) {
			return fail(invalidParams("%s prompt blocks are not supported (see promptCapabilities)", b.Type))
		}
	}
	tctx := trace.Begin(s.ctx, "turn", p.SessionID)
	if adapters.IsJudged(ctx) { // steered input's verdict travels with it
		tctx = adapters.Judged(tctx)
	}
	trace.Mark(tctx, trace.Received)
	turn := ss.turns.Accept(tctx) // a prompt sent while a turn runs is queued
	prev, done := ss.turns.Order()
	return func() (any, func(), error) {
		<-prev
		ok := ss.await(turn)
		done() // a change sent during the turn is not held until it ends
		if !ok {
			return schema.PromptResponse{StopReason: schema.StopCancelled}, nil, nil
		}
		s.reopenBridge()
		reason, usage, err := ss.runTurn(turn, p.Prompt)
		if err != nil {
			return nil, turn.Release, err // the next queued prompt starts once this answer is written
		}
		// waitedForAgent tells a client (and hub's benchmarks) whether the agent was up already.
		meta := schema.Meta{"hub": map[string]any{"waitedForAgent": ss.waited.Load()}}
		return schema.PromptResponse{StopReason: reason, Usage: usageOf(usage), Meta: meta}, turn.Release, nil
	}
}

func (s *server) setMode(ctx context.Context, p schema.SetSessionModeRequest) (any, func(), error) {
	ss, err := s.lookup(p.SessionID)
	if err != nil {
		return nil, nil, err
	}
	if _, err := ss.setOption(ctx, "mode", p.ModeID); err != nil {
		return nil, nil, err
	}
	// Keep the mode config option in sync with the legacy mode (§7).
	return struct{}{}, func() {
		ss.send(schema.SessionUpdate{ConfigOption: &schema.ConfigOptionUpdate{ConfigOptions: ss.configOptions()}})
	}, nil
}

func (s *server) setConfigOption(ctx context.Context, p schema.SetSessionConfigOptionRequest) (any, func(), error) {
	ss, err := s.lookup(p.SessionID)
	if err != nil {
		return nil, nil, err
	}
	var value string
	var flag bool
	switch {
	case json.Unmarshal(p.Value, &value) == nil:
	case json.Unmarshal(p.Value, &flag) == nil:
		value = fmt.Sprint(flag) // a boolean option
	default:
		return nil, nil, invalidParams("value of %q must be a value id or a boolean", p.ConfigID)
	}
	after, err := ss.setOption(ctx, p.ConfigID, value)
	if err != nil {
		return nil, nil, err
	}
	if p.ConfigID == "mode" {
		// Keep the legacy mode in sync with the mode config option (§7).
		after = func() { ss.send(schema.SessionUpdate{CurrentMode: &schema.CurrentModeUpdate{CurrentModeID: value}}) }
	}
	return schema.SetSessionConfigOptionResponse{ConfigOptions: ss.configOptions()}, after, nil
}
