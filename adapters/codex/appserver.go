package codex

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"sync"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fileuri"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
	"github.com/hubdev/hub/internal/trace"
)

var _ adapters.Exiter = (*appSession)(nil)

// appServer names the app-server process in what hub says of its end.
const appServer = "codex app-server"

// appSession is one codex thread on a persistent app-server process.
type appSession struct {
	a    *Adapter
	p    *proc.Process
	rpc  *jsonrpc.Conn
	dec  *CodexDecoder
	opts adapters.SessionOptions
	raw  *adapters.UnknownRecords
	turn adapters.Running

	mu      sync.Mutex
	skills  string // goes in front of the next prompt when codex could not load the skills natively
	thread  string
	turnID  string
	perms   []*adapters.PermissionRequest
	closing bool
	// model, mode and effort are what the thread runs; next holds the
	// turn/start overrides of changes made since the last turn.
	model, mode, effort string
	next                map[string]any
}

func (a *Adapter) startAppServer(ctx context.Context, opts adapters.SessionOptions) (*appSession, error) {
	argv := a.cfg.ArgvOr("codex")
	args := append(append(argv[1:], "app-server"), configOverrides(opts)...)
	p, err := proc.Start(context.WithoutCancel(ctx), proc.Spec{Path: argv[0], Args: args, Dir: opts.Cwd, Env: a.env(opts)})
	if err != nil {
		return nil, adapters.StartError(err)
	}
	s := &appSession{a: a, p: p, dec: NewCodexDecoder(), opts: opts, raw: a.unknownRecords(), mode: a.mode(opts), next: map[string]any{}}
	if e := opts.Options[adapters.OptionEffort]; e != "" {
		s.effort, s.next["effort"] = e, e
	}
	s.rpc = jsonrpc.New(p.Stdout, p.Stdin, jsonrpc.Options{Request: s.request, Notify: s.notify, Logger: a.log})
	s.dec.Cwd = opts.Cwd
	go s.readLoop()
	ictx, cancel := context.WithTimeout(ctx, a.InitTimeout)
	defer cancel()
	// experimentalApi allows thread/start's experimentalRawEvents (see decoder_raw.go).
	init := map[string]any{"clientInfo": map[string]any{"name": "hub", "title": "hub", "version": "0"}, "capabilities": map[string]any{"experimentalApi": true}}
	var res json.RawMessage
	if err := adapters.Gone(ictx, p, appServer, "initialize", s.call(ictx, "initialize", init, &res)); err != nil {
		_ = p.Stop()
		return nil, adapters.Mark(errNoStart, adapters.WithStderr(p, err))
	}
	var ir struct {
		UserAgent string `json:"userAgent"`
	}
	_ = json.Unmarshal(res, &ir) // the version only labels warnings
	a.setCLIVersion(userAgentVersion(ir.UserAgent))
	trace.Mark(ctx, trace.Handshake)
	_ = s.rpc.Notify("initialized", nil)
	if err := s.addSkillRoots(ictx); err != nil {
		_ = p.Stop()
		return nil, err
	}
	var listed sync.WaitGroup
	listed.Go(func() { s.listModels(ctx) })
	if err := s.openThread(ctx); err != nil {
		_ = p.Stop()
		listed.Wait()
		return nil, err
	}
	trace.Mark(ctx, trace.Created)
	listed.Wait()
	return s, nil
}

// addSkillRoots makes codex scan the session's skill folders; a codex
// without skills/extraRoots/set gets the skills in front of the first prompt.
func (s *appSession) addSkillRoots(ctx context.Context) error {
	if len(s.opts.SkillDirs) == 0 {
		return nil
	}
	err := s.call(ctx, "skills/extraRoots/set", map[string]any{"extraRoots": skillRoots(s.opts.SkillDirs)}, nil)
	if err == nil {
		return nil
	}
	s.a.log.Warn().Err(err).Msg("codex cannot load skills natively; putting them in front of the prompt")
	text, perr := skillPrompt(s.opts.SkillDirs)
	if perr != nil {
		return fmt.Errorf("codex skills: %w", perr)
	}
	s.skills = text // before the session is anyone's: no lock
	return nil
}

func (s *appSession) openThread(ctx context.Context) error {
	sandbox, approval := s.a.policy(s.opts)
	params := map[string]any{"cwd": s.opts.Cwd, "approvalPolicy": approval, "sandbox": sandbox, "experimentalRawEvents": true}
	if s.opts.Model != "" {
		params["model"] = s.opts.Model
	}
	if s.opts.Instructions != "" {
		params["developerInstructions"] = s.opts.Instructions
	}
	method := "thread/start"
	if s.opts.ResumeID != "" {
		method = "thread/resume"
		if s.opts.Fork {
			method = "thread/fork"
		}
		params["threadId"] = s.opts.ResumeID
		params["excludeTurns"] = true
	}
	var r struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
		Model           string `json:"model"`
		ReasoningEffort string `json:"reasoningEffort"`
	}
	if err := s.call(ctx, method, params, &r); err != nil {
		return fmt.Errorf("%w (thread %q)", err, s.opts.ResumeID)
	}
	if r.Model != "" { // the model codex chose for the thread
		s.a.mu.Lock()
		s.a.catalog.current = r.Model
		s.a.mu.Unlock()
	}
	s.mu.Lock()
	s.thread = r.Thread.ID
	s.model = cmp.Or(r.Model, s.opts.Model)
	s.effort = cmp.Or(s.effort, r.ReasoningEffort)
	s.mu.Unlock()
	return nil
}

func (s *appSession) ID() string { s.mu.Lock(); defer s.mu.Unlock(); return s.thread }

// readLoop routes notifications and server requests; once codex closed its
// output (CrashEnd stops a codex that still runs) it ends the running turn.
func (s *appSession) readLoop() {
	_ = s.rpc.Serve(context.Background())
	end := adapters.CrashEnd(s.p, appServer)
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	s.turn.Exited(closing || s.turn.Cancelled(), end...)
}

func (s *appSession) Exit() *adapters.ErrorInfo {
	return adapters.Exit(s.p, appServer, s.rpc.Done())
}

// notify decodes a notification, in order with server requests.
func (s *appSession) notify(r *jsonrpc.Request) {
	s.route(s.dec.DecodeMessage(&CodexMessage{Method: r.Method, Params: r.Params}, r.Raw))
}

// request decodes a server request in order with notifications; an
// approval is answered once the user decides, anything else is refused.
func (s *appSession) request(_ context.Context, r *jsonrpc.Request) jsonrpc.Job {
	if r.Method == methodUserInput {
		return s.userInput(r.Params)
	}
	events := s.dec.DecodeMessage(&CodexMessage{ID: r.ID, Method: r.Method, Params: r.Params}, r.Raw)
	if len(events) != 1 || events[0].Type != adapters.EventPermission {
		s.route(events)
		return refuse(jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "hub does not support "+r.Method, nil))
	}
	req := events[0].Permission
	s.mu.Lock()
	s.perms = append(s.perms, req)
	s.mu.Unlock()
	s.route(events)
	return answerWhen(s, req.Decision(), func(d adapters.PermissionDecision) (any, func(), error) {
		return map[string]any{"decision": CodexDecision(d)}, nil, nil
	})
}

// answerWhen is the job that answers codex with result(v) once the user's
// v arrives on ch.
func answerWhen[T any](s *appSession, ch <-chan T, result func(T) (any, func(), error)) jsonrpc.Job {
	return func() (any, func(), error) {
		select {
		case v := <-ch:
			return result(v)
		case <-s.rpc.Done():
			return nil, nil, jsonrpc.ErrClosed
		}
	}
}

func refuse(err error) jsonrpc.Job { return func() (any, func(), error) { return nil, nil, err } }

// route forwards events to the running turn, keeping the thread id codex
// reports; the done event ends the turn.
func (s *appSession) route(events []adapters.Event) {
	for _, e := range events {
		s.mu.Lock()
		switch {
		case e.Type == adapters.EventSessionInfo && e.Session.AgentSessionID != "":
			s.thread = e.Session.AgentSessionID
		case e.Type == adapters.EventDone: // the turn and its id end together
			s.turnID, s.perms = "", nil
			s.turn.Emit(e)
		case e.Type == adapters.EventRaw:
			s.raw.Note(e.Source)
		}
		s.mu.Unlock()
		if e.Type != adapters.EventDone {
			s.turn.Emit(e) // outside the lock: it waits while the turn's queue is full
		}
	}
}

// call is rpc.Call whose error names the method.
func (s *appSession) call(ctx context.Context, method string, params, result any) error {
	if err := s.rpc.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("codex %s: %w", method, err)
	}
	return nil
}

func (s *appSession) Prompt(ctx context.Context, prompt []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return "", adapters.ErrClosed
	}
	out, err := s.turn.StartOn(s.p, appServer, adapters.ErrClosed)
	if err != nil {
		s.mu.Unlock()
		return "", err
	}
	skillText := s.skills
	params := map[string]any{"threadId": s.thread, "input": userInput(withSkills(prompt, skillText))}
	if len(s.opts.OutputSchema) > 0 {
		params["outputSchema"] = s.opts.OutputSchema
	}
	next := s.next
	maps.Copy(params, next)
	s.next = map[string]any{}
	s.mu.Unlock()
	var r struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	s.p.Trace(ctx)
	if err := s.call(ctx, "turn/start", params, &r); err != nil {
		s.mu.Lock()
		maps.Copy(next, s.next) // not applied: the next turn carries them, under newer changes
		s.next = next
		s.mu.Unlock()
		s.turn.End(out)
		return "", err
	}
	s.mu.Lock()
	if s.turn.Current() == out {
		s.turnID = r.Turn.ID
	}
	if s.skills == skillText {
		s.skills = ""
	}
	s.mu.Unlock()
	return out.Run(ctx, emit, adapters.RulesOf(s.opts, s.interrupt, nil))
}

// Steer implements adapters.Steerer: turn/steer adds the input to the
// running turn (codex checks it is still the turn hub started).
func (s *appSession) Steer(ctx context.Context, prompt []adapters.Content) error {
	s.mu.Lock()
	thread, turn := s.thread, s.turnID
	s.mu.Unlock()
	if turn == "" {
		return adapters.ErrNoTurn
	}
	return s.call(ctx, "turn/steer", map[string]any{"threadId": thread, "expectedTurnId": turn, "input": userInput(prompt)}, nil)
}

// userInput maps prompt blocks to codex UserInput items; a file URI's
// image is the local file it names.
func userInput(prompt []adapters.Content) []map[string]any {
	var items []map[string]any
	if text := adapters.PromptText(prompt); text != "" {
		items = append(items, map[string]any{"type": "text", "text": text, "text_elements": []any{}})
	}
	for _, c := range prompt {
		path, _ := fileuri.ToPath(runtime.GOOS, c.URI)
		switch {
		case c.Type != adapters.ContentImage:
		case c.Data != "":
			items = append(items, map[string]any{"type": "image", "url": "data:" + c.MimeType + ";base64," + c.Data})
		case path != "":
			items = append(items, map[string]any{"type": "localImage", "path": path})
		case c.URI != "":
			items = append(items, map[string]any{"type": "image", "url": c.URI})
		}
	}
	return items
}

// interrupt cancels pending approvals and the turn; codex then reports
// turn/completed "interrupted".
func (s *appSession) interrupt() {
	s.mu.Lock()
	thread, turn, perms, t := s.thread, s.turnID, s.perms, s.turn.Current()
	s.mu.Unlock()
	if t == nil {
		return
	}
	for _, p := range perms {
		p.Respond(adapters.PermissionDecision{Cancelled: true})
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10e9)
		defer cancel()
		if err := s.call(ctx, "turn/interrupt", map[string]any{"threadId": thread, "turnId": turn}, nil); err != nil {
			s.a.log.Warn().Err(err).Msg("codex turn/interrupt failed; stopping the process")
			t.Cancel() // its end is the cancel's, not a crash; the next prompt's the stop's
			_ = s.p.StopFor(adapters.StopIgnoredCancel)
			return
		}
		// An interrupt leaves codex's "unified exec" processes running
		// (it says so to the model); a cancelled turn's commands end too.
		if err := s.call(ctx, "thread/backgroundTerminals/clean", map[string]any{"threadId": thread}, nil); err != nil {
			s.a.log.Debug().Err(err).Msg("codex thread/backgroundTerminals/clean failed")
		}
	}()
}

// Close implements adapters.Session. Each step is idempotent (a request is
// answered once, Stop and the connection's end are the process's).
func (s *appSession) Close() error {
	s.mu.Lock()
	s.closing = true
	perms := s.perms
	s.mu.Unlock()
	for _, p := range perms {
		p.Respond(adapters.PermissionDecision{Cancelled: true})
	}
	_ = s.p.Stop()
	<-s.rpc.Done()
	return nil
}
