package acpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/trace"
)

// Session is one ACP session with a dedicated agent process.
type Session struct {
	a     *Adapter
	opts  adapters.SessionOptions
	proc  *proc.Process
	conn  *jsonrpc.Conn
	caps  schema.AgentCapabilities
	id    string
	dec   *ACPDecoder
	local *local
	env   []string
	raw   *adapters.UnknownRecords
	// version is initialize's agentInfo.version (a string) for raw, which
	// may warn before initialize answers.
	version atomic.Value

	mu      sync.Mutex
	turn    adapters.Running // started under mu, as pending is taken
	pending []adapters.Event // the next turn tells first: the session id, updates between turns
	// commands are the last commands told between turns (Surface);
	// commandsKept is closed once there are some.
	commands     []adapters.Command
	commandsKept chan struct{}
	config       []configOption
	legacy       sessionResult // modes / models when configOptions are absent

	closeOnce sync.Once
	closed    chan struct{}
}

var (
	_ adapters.Session      = (*Session)(nil)
	_ adapters.Configurable = (*Session)(nil)
)

func (a *Adapter) startACP(ctx context.Context, opts adapters.SessionOptions) (*Session, error) {
	env, argv, notice := adapters.Environ(nil, a.cfg.Env, opts.Env), a.cfg.Argv, ""
	if a.cfg.SessionArgv != nil {
		argv, notice = a.cfg.SessionArgv(opts)
	}
	p, err := proc.Start(context.WithoutCancel(ctx), proc.Spec{
		Path: argv[0], Args: argv[1:], Dir: opts.Cwd, Env: env, Grace: a.cfg.StopGrace,
	})
	if err != nil {
		return nil, adapters.StartError(err)
	}
	s := &Session{a: a, opts: opts, proc: p, dec: &ACPDecoder{Quirks: a.cfg.Quirks}, env: env, closed: make(chan struct{}), commandsKept: make(chan struct{})}
	if f := a.cfg.Quirks.FollowShell; f != nil {
		s.dec.Follow = f(opts.Cwd, opts.AddDirs)
	}
	if notice != "" {
		s.pending = []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: notice, Code: adapters.CodeWarning}}}
	}
	s.local = newLocal(opts.Cwd, opts.AddDirs, a.cfg.Name, a.cfg.Sandbox, s.askLocal, a.cfg.Logger)
	s.raw = unknownRecords(a.cfg, func() string { v, _ := s.version.Load().(string); return v })
	log := a.cfg.Logger.With().Str("agent", a.cfg.Name).Logger()
	s.conn = jsonrpc.New(p.Stdout, p.Stdin, jsonrpc.Options{Request: s.request, Notify: s.notify, Logger: log,
		CancelMethod: "$/cancel_request", Cancellable: true}) // the agent may withdraw what it asks
	go func() {
		_ = s.conn.Serve(context.Background())
		adapters.CrashEnd(p, a.cfg.Name) // stops an agent that closed its output but runs on
	}()
	go func() {
		closeOnExit(p, s.conn, s.closed)
		s.local.releaseAll() // its terminals end with it, closed or not (a crashed delegate's stays open)
	}()
	sctx, cancel := context.WithTimeout(ctx, a.cfg.InitTimeout)
	defer cancel()
	if err := s.handshake(sctx); err != nil {
		_ = s.Close()
		return nil, s.explain(err)
	}
	return s, nil
}

// exitDrain bounds the wait for the end of an exited process's output:
// what it wrote last is still in the pipe, but a child it left behind may
// hold the pipe open forever.
const exitDrain = 2 * time.Second

// drained waits until eof is closed, at most exitDrain.
func drained(eof <-chan struct{}) {
	select {
	case <-eof:
	case <-time.After(exitDrain):
	}
}

// closeOnExit closes conn once the agent p exited and its output was read
// (or exitDrain passed), unless stop closes first.
func closeOnExit(p *proc.Process, conn *jsonrpc.Conn, stop <-chan struct{}) {
	select {
	case <-p.Done():
	case <-stop:
		return
	}
	drained(conn.Done())
	conn.Close()
}

// explain adds the agent's stderr tail to a handshake failure.
func (s *Session) explain(err error) error {
	if errors.Is(err, adapters.ErrNotAuthenticated) || errors.Is(err, adapters.ErrUnsupported) {
		return err
	}
	return adapters.Mark(ErrInitialize, adapters.WithStderr(s.proc, err))
}

func (s *Session) handshake(ctx context.Context) error {
	caps := s.clientCaps()
	var init schema.InitializeResponse
	err := s.call(ctx, "initialize", schema.InitializeRequest{ProtocolVersion: schema.ProtocolVersion, ClientCapabilities: caps,
		ClientInfo: &schema.Implementation{Name: "hub", Title: "hub", Version: s.a.cfg.ClientVersion}}, &init)
	if ex := (*adapters.Exited)(nil); errors.As(err, &ex) { // it names initialize already
		return err
	} else if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if init.ProtocolVersion != schema.ProtocolVersion {
		return fmt.Errorf("%w: agent speaks ACP version %d, hub speaks 1", ErrProtocol, init.ProtocolVersion)
	}
	trace.Mark(ctx, trace.Handshake)
	s.caps = init.AgentCapabilities
	s.a.learnInit(init)
	if init.AgentInfo != nil {
		s.version.Store(init.AgentInfo.Version)
	}
	if err := s.openSession(ctx); err != nil {
		return err
	}
	trace.Mark(ctx, trace.Created)
	return s.applyDefaults(ctx)
}

func (s *Session) openSession(ctx context.Context) error {
	load := schema.LoadSessionRequest{SessionID: s.opts.ResumeID, Cwd: s.opts.Cwd, McpServers: s.mcpServers(), AdditionalDirectories: s.addDirs()}
	var res sessionResult
	var err error
	if s.opts.ResumeID != "" && s.a.cfg.BeforeLoad != nil {
		if err := s.a.cfg.BeforeLoad(s.opts.ResumeID, s.env); err != nil {
			s.a.cfg.Logger.Warn().Err(err).Str("agent", s.a.cfg.Name).Msg("preparing the session load failed")
		}
	}
	switch {
	case s.opts.ResumeID == "":
		err = s.call(ctx, "session/new", schema.NewSessionRequest{Cwd: load.Cwd, McpServers: load.McpServers, AdditionalDirectories: load.AdditionalDirectories}, &res)
	case s.caps.SessionCapabilities.Resume != nil:
		err = s.call(ctx, "session/resume", load, &res)
	case s.caps.LoadSession:
		err = s.call(ctx, "session/load", load, &res)
		if err == nil {
			s.flushReplay(ctx)
		}
	default:
		return fmt.Errorf("%w: %s cannot resume sessions (no loadSession or session resume capability)", adapters.ErrUnsupported, s.a.cfg.Name)
	}
	if err != nil {
		return s.sessionError(err)
	}
	s.id = cmp.Or(res.SessionID, s.opts.ResumeID)
	if s.id == "" {
		return fmt.Errorf("%w: session/new returned no sessionId", ErrProtocol)
	}
	s.remember(res)
	return nil
}

// addDirs are the session's more workspace roots if the agent takes them.
func (s *Session) addDirs() []string {
	if len(s.opts.AddDirs) == 0 {
		return nil
	}
	if s.caps.SessionCapabilities.AdditionalDirectories == nil {
		s.a.cfg.Logger.Warn().Str("agent", s.a.cfg.Name).Strs("dirs", s.opts.AddDirs).
			Msg("the agent takes no additionalDirectories; it works in the session's cwd only")
		return nil
	}
	return s.opts.AddDirs
}

func (s *Session) sessionError(err error) error {
	var re *jsonrpc.Error
	if errors.As(err, &re) && re.Code == schema.CodeAuthRequired {
		hint := cmp.Or(s.a.cfg.LoginHint, "log in with the agent's own CLI")
		return fmt.Errorf("%w: %s: %s (%s, then retry)", adapters.ErrNotAuthenticated, s.a.cfg.Name, re.Message, hint)
	}
	return fmt.Errorf("open session: %w", err)
}

// flushReplay waits for the history an agent replays after answering
// session/load (gemini sends it late): a round trip the agent answers after
// the updates it queued, so they never reach the next prompt.
func (s *Session) flushReplay(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for range 2 { // twice: a replay may itself be queued behind one more hop
		_ = s.conn.Call(ctx, "_hub/flush", map[string]any{}, nil)
	}
}

// remember keeps the session's model and mode choices, and has the first
// turn tell the session's id.
func (s *Session) remember(res sessionResult) {
	s.mu.Lock()
	s.config, s.legacy = res.ConfigOptions, sessionResult{Modes: res.Modes, Models: res.Models}
	s.pending = append([]adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: s.id}}}, s.pending...)
	s.mu.Unlock()
	s.a.learn(options(res.ConfigOptions, res))
}

func (s *Session) applyDefaults(ctx context.Context) error {
	model, mode := cmp.Or(s.opts.Model, s.a.cfg.Model), cmp.Or(s.opts.Mode, s.a.cfg.Mode)
	if model != "" {
		if err := s.SetModel(ctx, model); err != nil {
			return err
		}
	}
	if mode != "" {
		if err := s.SetMode(ctx, mode); err != nil {
			return err
		}
	}
	for id, v := range s.opts.Options {
		if err := s.SetOption(ctx, id, v); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) mcpServers() []schema.McpServer {
	out := []schema.McpServer{}
	for _, m := range s.opts.MCPServers {
		srv := schema.McpServer{Name: m.Name, Command: m.Command, Args: m.Args, URL: m.URL}
		switch m.Type {
		case "http", "sse":
			if (m.Type == "http" && !s.caps.McpCapabilities.HTTP) || (m.Type == "sse" && !s.caps.McpCapabilities.SSE) {
				s.a.cfg.Logger.Warn().Str("server", m.Name).Msgf("%s does not accept %s MCP servers; skipped", s.a.cfg.Name, m.Type)
				continue
			}
			srv.Type = m.Type
			for k, v := range m.Headers {
				srv.Headers = append(srv.Headers, schema.HTTPHeader{Name: k, Value: v})
			}
		default:
			for k, v := range m.Env {
				srv.Env = append(srv.Env, schema.EnvVariable{Name: k, Value: v})
			}
		}
		out = append(out, srv)
	}
	return out
}

// callWhile is conn.Call to the agent process p, whose exit closes conn
// (closeOnExit): a call its exit ended is adapters.Gone.
func callWhile(ctx context.Context, p *proc.Process, name string, conn *jsonrpc.Conn, method string, params, result any) error {
	raw, err := conn.CallRaw(ctx, method, params)
	if err == nil && result != nil {
		if err = adapters.Unmarshal(raw, result); err != nil {
			err = fmt.Errorf("decode %s result: %w", method, err)
		}
	}
	return adapters.Gone(ctx, p, name, method, err)
}

// call is callWhile on the session's agent.
func (s *Session) call(ctx context.Context, method string, params, result any) error {
	return callWhile(ctx, s.proc, s.a.cfg.Name, s.conn, method, params, result)
}

func (s *Session) ID() string { return s.id }

func (s *Session) SetModel(ctx context.Context, model string) error {
	return s.set(ctx, adapters.OptionModel, model)
}

func (s *Session) SetMode(ctx context.Context, mode string) error {
	return s.set(ctx, adapters.OptionMode, mode)
}

// set sets the model or the mode (id): through the agent's config option,
// else session/set_model or session/set_mode.
func (s *Session) set(ctx context.Context, id, value string) error {
	if c, ok := s.option(id); ok {
		return s.setConfig(ctx, c, value)
	}
	s.mu.Lock()
	noModels := id == adapters.OptionModel && s.legacy.Models == nil
	s.mu.Unlock()
	if noModels {
		return fmt.Errorf("%w: %s offers no model choice", adapters.ErrUnsupported, s.a.cfg.Name)
	}
	if err := s.call(ctx, "session/set_"+id, map[string]string{"sessionId": s.id, id + "Id": value}, nil); err != nil {
		return fmt.Errorf("%s: set %s %q: %w", s.a.cfg.Name, id, value, err)
	}
	return nil
}

// option is the agent's config option hub knows as id (hubOptionID).
func (s *Session) option(id string) (configOption, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.config, func(c configOption) bool { return hubOptionID(c) == id })
	if i < 0 {
		return configOption{}, false
	}
	return s.config[i], true
}

// setConfig sends session/set_config_option (a value id, or a typed
// boolean) and keeps the options it answers.
func (s *Session) setConfig(ctx context.Context, c configOption, value string) error {
	var res sessionResult // its configOptions
	req := schema.SetSessionConfigOptionRequest{SessionID: s.id, ConfigID: c.ID}
	req.Value, _ = json.Marshal(value)
	if c.Type == "boolean" {
		req.Type, req.Value = "boolean", json.RawMessage(strconv.FormatBool(value == "true"))
	}
	if err := s.call(ctx, "session/set_config_option", req, &res); err != nil {
		return fmt.Errorf("%s: set %s to %v: %w", s.a.cfg.Name, c.ID, value, err)
	}
	if len(res.ConfigOptions) > 0 {
		s.mu.Lock()
		s.config = res.ConfigOptions
		s.mu.Unlock()
	}
	return nil
}

func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.interrupt()
		s.closeSession()
		s.local.releaseAll()
		s.conn.Close()
		_ = s.proc.Stop()
	})
	return nil
}

// closeSession lets an agent that advertises session/close release the
// session before its process stops, waiting at most CloseWait.
func (s *Session) closeSession() {
	if s.caps.SessionCapabilities.Close == nil || s.id == "" || s.proc.Exited() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.a.cfg.CloseWait)
	defer cancel()
	if err := s.call(ctx, "session/close", schema.SessionIDRequest{SessionID: s.id}, nil); err != nil {
		s.a.cfg.Logger.Debug().Err(err).Str("agent", s.a.cfg.Name).Msg("session/close failed")
	}
}
