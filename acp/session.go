package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/trace"
	"github.com/hubdev/hub/internal/transcript"
	"github.com/hubdev/hub/personas"
)

// session is one editor session; it runs on one agent session at a time
// (agent), started ahead of its first prompt within the warm cap.
type session struct {
	srv    *server
	set    Settings // from the config of the session's cwd
	mcp    []adapters.MCPServer
	editor *editorClient

	// sendMu orders the session's updates. Sends are synchronous: a turn's
	// updates come from the goroutine running the adapter's Prompt, each
	// written before the next event is handed on, so they precede the prompt
	// response without a queue; an editor that does not read holds the
	// agent's reader back (adapters.TurnQueue): back-pressure, not memory.
	sendMu sync.Mutex
	// emitMu makes sending and recording a turn's update one step, so steered
	// input lands in the history where the editor saw it arrive.
	emitMu sync.Mutex

	saveMu        sync.Mutex // one save at a time
	mu            sync.Mutex
	rec           *Record
	agent         *conversation.Agent // the agent session it runs on, through its life
	turns         conversation.Turns  // its prompts, accepted inline on the read loop
	running       bool                // its turn runs: changes ordered before it took effect
	closed        bool
	gate          *conversation.Gate       // the session's rules, "always" answers and grants
	audit         *transcript.Audit        // transcripts = true: the session's Event stream (written from its first turn)
	hooks         map[bool]*hooks.Observer // by whether the agent runs its tools' hooks itself (see observer)
	delegs        []*delegationHost        // delegation: the hosts of the delegate tool
	seenTools     map[string]bool
	agentCommands []adapters.Command
	live          *adapters.Surface // what the running agent reported it offers; nil until then
	waited        atomic.Bool       // the last prompt waited for its agent to start
	// chunk accumulates the text of the last history entry while streamed
	// chunks keep merging into it, so a long answer costs O(n), not O(n²).
	chunk strings.Builder
	// crashed marks the agent session dead for the rest of this turn: the next
	// prompt starts a fresh one (resuming the agent's session where it can).
	crashed bool
	// plan is how the agent last started: its briefing (Lead) goes ahead of
	// each prompt until one reached the agent (briefed).
	plan conversation.StartPlan
	// persisted counts the History entries already saved; dropped those
	// no longer kept in memory (they are on disk).
	persisted, dropped int
	span               atomic.Pointer[trace.Span] // the running turn's trace; nil when off
}

func (ss *session) id() string { return ss.rec.SessionID }

func (ss *session) send(u schema.SessionUpdate) {
	ss.sendMu.Lock()
	defer ss.sendMu.Unlock()
	if err := ss.srv.conn.Notify("session/update", &schema.SessionNotification{SessionID: ss.id(), Update: u}); err != nil {
		ss.srv.log.Error().Err(err).Msg("session/update not sent")
	}
}

// emit sends an update of the running turn and keeps it in the history,
// as one step (see recordUser).
func (ss *session) emit(u schema.SessionUpdate) {
	ss.emitMu.Lock()
	defer ss.emitMu.Unlock()
	ss.send(u)
	sp := ss.span.Load() // the turn's first update sent, and its first text
	sp.Mark(trace.FirstSent)
	if u.AgentMessageChunk != nil {
		sp.Mark(trace.FirstText)
	}
	ss.record(u)
}

// sayf says hub's own line of the turn (a notice, a warning), never the agent's text.
func (ss *session) sayf(format string, a ...any) {
	ss.emit(hubLine(fmt.Sprintf(format, a...)))
}

// cancel ends the running turn, if any. It runs in the read loop: it only
// cancels the turn's context, which interrupts the agent and resolves
// pending permission requests as cancelled.
func (ss *session) cancel() {
	if ss.turns.Cancel() { // queued prompts are dropped: each answers cancelled
		go ss.endDelegates(false) // off the read loop: it takes their locks and ss.mu
	}
}

func (ss *session) close() {
	ss.turns.Close() // a prompt accepted from now on is answered cancelled
	ss.mu.Lock()
	ss.closed = true
	obs := slices.Collect(maps.Values(ss.hooks)) // a closed session makes none
	ss.mu.Unlock()
	if b := ss.agent.Close(); b != nil {
		if err := b.Close(); err != nil {
			ss.srv.log.Debug().Err(err).Str("session", ss.id()).Msg("adapter close")
		}
	}
	ss.endDelegates(true)
	ss.audit.Close()
	for _, o := range obs {
		o.Close()
	}
	ss.editor.releaseAll()
}

// observer is the session's hook observer for a turn of agent, made at the
// first such turn: one for the agents whose hooks hub runs, one for those
// that run all but the prompt's themselves (conversation.HooksOf); nil: none.
func (ss *session) observer(agent string) *hooks.Observer {
	a, err := ss.agents().Get(agent)
	if err != nil {
		return nil
	}
	own, hs := a.Capabilities().Hooks, conversation.HooksOf(a.Capabilities(), ss.set.Hooks)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.hooks[own] == nil && hs != nil && !ss.closed {
		ss.hooks[own] = hs.Observe(hooks.Input{Session: ss.rec.SessionID, Cwd: ss.rec.Cwd, Agent: agent})
	}
	return ss.hooks[own]
}

// memHistory bounds the history a session keeps in memory (for the
// briefing); the whole history is on disk, read back for session/load.
const memHistory = 1000

// save writes the record's metadata and appends the history entries added
// since the last save; saves run one at a time, in order. Nothing reaches
// the disk before the session's first turn.
func (ss *session) save() error {
	ss.saveMu.Lock()
	defer ss.saveMu.Unlock()
	ss.mu.Lock()
	ss.flushChunk()
	ss.rec.UpdatedAt = ss.srv.opts.Now()
	meta := ss.rec.clone() // saved after the lock is left
	more := slices.Clone(ss.rec.History[ss.persisted:])
	ss.persisted = len(ss.rec.History)
	persist := ss.persisted > 0 || ss.dropped > 0
	if n := len(ss.rec.History); n > 2*memHistory {
		drop := min(n-memHistory, n-len(more)) // what this save writes stays until it is written
		ss.rec.History = slices.Clone(ss.rec.History[drop:])
		ss.persisted -= drop
		ss.dropped += drop
	}
	ss.mu.Unlock()
	err := ss.srv.index.Save(&meta, more, persist)
	if err != nil {
		ss.srv.log.Warn().Err(err).Msg("session index not saved")
		ss.mu.Lock()
		ss.persisted = max(ss.persisted-len(more), 0) // the next save tries them again
		ss.mu.Unlock()
	}
	return err
}

// agents are hub's agents and the personas visible in the session's cwd.
func (ss *session) agents() *adapters.Registry {
	return cmp.Or(ss.set.Registry, ss.srv.opts.Registry)
}

// runnersLocked are the agents as the session runs them: its agent as the
// persona whose turn it took over (rec.Persona), and the agents of list
// as the persona the session runs (conversation.FallbackAgents). Caller
// holds ss.mu.
func (ss *session) runnersLocked(list ...string) *adapters.Registry {
	reg := ss.agents()
	p, _ := reg.Get(ss.rec.Persona)
	if _, ok := p.(*personas.Adapter); ss.rec.Persona != "" && !ok { // gone since: the agent never runs bare
		gone := adapters.NewRegistry()
		for _, n := range reg.Names() {
			a, _ := reg.Get(n)
			gone.Register(a)
		}
		gone.Register(&personas.Adapter{P: personas.Persona{Name: ss.rec.Persona, Untrusted: "its file is gone or unreadable; pick another agent"}})
		reg = gone
	}
	return conversation.FallbackAgents(reg, cmp.Or(ss.rec.Persona, ss.rec.Agent), append([]string{ss.rec.Agent}, list...))
}

// noteAgentSessionID keeps agent session b's own id for resume even when
// its session_info event came before any turn and had no one to reach.
// Caller holds ss.mu.
func (ss *session) noteAgentSessionID(b adapters.Session) {
	if b != nil && ss.rec.AgentSessionID == "" {
		ss.rec.AgentSessionID = b.ID()
	}
}

// await waits for turn's place and marks it running; false when it was
// dropped (cancelled before it ran).
func (ss *session) await(turn *conversation.Turn) bool {
	if !ss.turns.Await(turn) {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.running = true
	return true
}

// runTurn runs turn, which await let run, and returns its stop reason and
// usage, or its error; every update of the turn is written before it returns.
func (ss *session) runTurn(turn *conversation.Turn, prompt []schema.ContentBlock) (string, *adapters.Usage, error) {
	defer func() {
		ss.mu.Lock()
		ss.running = false
		ss.noteAgentSessionID(ss.agent.Current())
		ss.mu.Unlock()
		ss.turns.End(turn)
		_ = ss.save()
		ss.agent.Rest()
	}()
	turnCtx := turn.Context()
	ss.agent.Use()
	admit := sync.OnceFunc(func() { ss.recordUser(prompt) }) // once the hooks passed: a save before must not keep it
	ss.span.Store(trace.From(turnCtx))
	var reason string
	var failure *adapters.ErrorInfo
	var usage *adapters.Usage
	if args, ok := compareLine(prompt); ok {
		admit()
		reason = ss.runCompare(turnCtx, args)
	} else {
		reason, failure, usage = ss.driveWithFallback(turnCtx, ss.fitContent(ss.toAdapterContent(prompt)), admit)
	}
	if failure == nil || failure.Code != adapters.CodeHook { // a failed start or a cancel keeps it; a blocked one never was, for the agent nor here
		admit()
	}
	if turnCtx.Err() != nil { // cancelled: only cancel (or the server's end) ends the turn's context
		reason = schema.StopCancelled
	}
	if reason != schema.StopCancelled && failure != nil {
		return "", nil, ss.turnError(failure)
	}
	return reason, usage, nil
}

// turnError is the JSON-RPC error a failed turn answers: a missing login is
// -32000 "Authentication required", which editors turn into their login UI.
func (ss *session) turnError(e *adapters.ErrorInfo) *jsonrpc.Error {
	code := schema.CodeInternalError
	if e.Code == adapters.CodeAuth {
		code = schema.CodeAuthRequired
	}
	data := map[string]any{"code": e.Code, "agent": ss.agentName()}
	if e.Detail != "" {
		data["detail"] = e.Detail
	}
	return jsonrpc.NewError(code, e.Message, data)
}

func (ss *session) agentName() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.rec.Agent
}

// driveWithFallback is drive, handing the turn to the next agent of the first
// agent's fallback list while the one before could not do the work
// (conversation.Fallbacks). The usage is the attempts' sum.
func (ss *session) driveWithFallback(turnCtx context.Context, content []adapters.Content, admitted func()) (
	reason string, failure *adapters.ErrorInfo, usage *adapters.Usage) {
	first := ss.agentName() // its list, as hub run and delegates follow the first agent's
	priced := false
	ss.mu.Lock()
	reg := ss.runnersLocked(ss.srv.opts.Fallback[first]...)
	ss.mu.Unlock()
	walk := conversation.Fallbacks{Registry: reg, List: ss.srv.opts.Fallback[first], Ready: ss.srv.ready.check}
	walk.Walk(turnCtx, first, func(_ string, watch bool) (conversation.Class, bool) {
		var d *conversation.Digest
		reason, failure, d = ss.drive(turnCtx, content, watch, admitted)
		usage, priced = conversation.AddUsage(usage, d.Usage), priced || d.Priced
		ss.spent(d.Usage) // the attempt's, told or priced
		return conversation.Classify(failure), len(d.ToolCalls) > 0
	}, func(_, next, why string) {
		admitted() // before what follows it
		ss.sayf("hub: %s.\n\n", conversation.HandoverLine(why, next))
		a, _ := reg.Get(next)
		ss.mu.Lock()
		if ss.switchLocked(next, conversation.RunsAs(a), nil) { // next runs as first's persona from now on; drive retired a crashed agent; the next drive starts the new one
			ss.sendCommands(true)
		}
		ss.send(schema.SessionUpdate{ConfigOption: &schema.ConfigOptionUpdate{ConfigOptions: ss.configOptions()}})
	})
	if priced { // a cost no agent told: hub's, every attempt's, as hub run's summary tells it
		for _, u := range usageUpdate(usage, ss.costWith(nil)) {
			ss.send(u)
		}
	}
	return reason, failure, usage
}

func (ss *session) spent(u *adapters.Usage) {
	if u != nil && u.CostUSD != nil {
		ss.mu.Lock()
		ss.rec.Cost += *u.CostUSD
		ss.mu.Unlock()
	}
}

// drive runs the turn on the agent session and returns what the agent did
// and, when it failed, why. watch says a fallback agent waits: the turn's
// failure is decided early (an auth refusal, a provider that keeps failing).
func (ss *session) drive(turnCtx context.Context, content []adapters.Content, watch bool, admitted func()) (string, *adapters.ErrorInfo, *conversation.Digest) {
	b, waited, err := ss.agent.Await(turnCtx)
	trace.Mark(turnCtx, trace.AgentReady)
	ss.waited.Store(waited)
	ss.mu.Lock()
	agent, cwd := ss.rec.Agent, ss.rec.Cwd
	ss.mu.Unlock()
	switch {
	case err != nil && turnCtx.Err() != nil:
		return schema.StopCancelled, nil, new(conversation.Digest) // cancelled (or closed) while the agent was starting
	case errors.Is(err, conversation.ErrCrashLoop):
		return schema.StopEndTurn, adapters.ErrorOf(fmt.Errorf("%s: %w", agent, err)), new(conversation.Digest) // which agent the user is to fix
	case err != nil:
		return schema.StopEndTurn, adapters.ErrorOf(err), new(conversation.Digest)
	}
	lead := func() string {
		defer admitted()
		ss.mu.Lock()
		defer ss.mu.Unlock()
		return ss.plan.Lead // until briefed
	}
	oc, err := conversation.RunTurn(turnCtx, conversation.TurnSpec{Agent: agent, Session: b, Prompt: content, Lead: lead, Reached: ss.briefed,
		Hooks: ss.observer(agent), Audit: ss.audit, Gate: ss.gate, Emit: ss.forward, Workspace: cwd,
		Watch: watch, WatchBound: ss.srv.opts.ProviderTimeout})
	for _, w := range oc.Warnings { // the turn's hooks that failed, before it ends
		ss.srv.log.Warn().Str("session", ss.id()).Str("hook", w).Msg("hook failed")
		ss.sayf("\nhub: hook: %s\n", w)
	}
	ss.mu.Lock()
	ss.rec.Files = handover.AddFiles(ss.rec.Files, oc.Digest.Files()...) // for the briefing
	ss.mu.Unlock()
	ss.retire(b, oc.Crashed, oc.Ending == conversation.Stuck)
	switch {
	case oc.Ending == conversation.Answered:
		return stopReason(oc.Stop), nil, oc.Digest
	case oc.Ending == conversation.Stuck && !oc.Crashed:
		ss.srv.log.Warn().Str("session", ss.id()).Msg("agent did not stop after cancel; restarting it")
		ss.sayf("\nhub: %s did not stop after the cancel; hub stopped it, and your next prompt starts it again.\n", agent)
		return schema.StopCancelled, nil, oc.Digest
	}
	return schema.StopEndTurn, cmp.Or(oc.Failure, adapters.ErrorOf(err)), oc.Digest // a turn error's Failure is its own
}

// retire closes b and forgets it if it is still this session's agent,
// after a crash (crash, or one its turn reported: a crash costs one turn,
// not the whole editor session) or when always.
func (ss *session) retire(b adapters.Session, crash, always bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	crash, ss.crashed = crash || ss.crashed, false
	if (crash || always) && ss.agent.Retire(b, crash) {
		ss.noteAgentSessionID(b)
		go func() { _ = b.Close(); ss.editor.releaseAll() }()
	}
}

// forward sends one event of the turn as updates. A fatal error is not
// shown: it answers the prompt, after the updates.
func (ss *session) forward(ev adapters.Event) {
	failed := ev.Type == adapters.EventError && ev.Error != nil
	ss.mu.Lock()
	ss.crashed = ss.crashed || failed && ev.Error.Code == adapters.CodeCrash
	ss.mu.Unlock()
	if failed && ev.Error.Fatal {
		return
	}
	for _, u := range ss.mapEvent(ev) {
		ss.emit(u)
	}
}

func stopReason(r adapters.StopReason) string {
	return oneOf(string(r), schema.StopEndTurn, schema.StopEndTurn, schema.StopMaxTokens, schema.StopMaxTurnRequests, schema.StopRefusal, schema.StopCancelled)
}

func errorText(e *adapters.ErrorInfo) string {
	s := "Error: " + e.Message
	if e.Detail != "" {
		s += "\n\n```\n" + e.Detail + "\n```"
	}
	return s + "\n"
}

// recordUser keeps a prompt, or input steered into the running turn, in
// the history, after the updates the editor has seen, as a user message
// of its own. forget takes it back (the agent did not take it) while it
// is not saved.
func (ss *session) recordUser(prompt []schema.ContentBlock) (forget func()) {
	ss.emitMu.Lock()
	defer ss.emitMu.Unlock()
	id := fmt.Sprintf("user-%d", time.Now().UnixNano())
	for _, blk := range prompt {
		ss.record(schema.SessionUpdate{UserMessageChunk: &schema.ContentChunk{Content: blk, MessageID: id}})
	}
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		ss.flushChunk()
		h := ss.rec.History
		ss.rec.History = h[:ss.persisted+len(slices.DeleteFunc(h[ss.persisted:], func(u schema.SessionUpdate) bool {
			return u.UserMessageChunk != nil && u.UserMessageChunk.MessageID == id
		}))]
	}
}

// record appends a history-worthy update, merging consecutive chunks.
func (ss *session) record(u schema.SessionUpdate) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	h := ss.rec.History
	switch u.Kind() {
	case schema.UpdateUserMessageChunk, schema.UpdateAgentMessageChunk, schema.UpdateAgentThoughtChunk:
		if n := len(h); n > ss.persisted && h[n-1].Kind() == u.Kind() && mergeable(*chunkOf(&h[n-1]), *chunkOf(&u)) {
			if ss.chunk.Len() == 0 {
				ss.chunk.WriteString((*chunkOf(&h[n-1])).Content.Text)
			}
			ss.chunk.WriteString((*chunkOf(&u)).Content.Text)
			return
		}
	case schema.UpdateToolCall, schema.UpdateToolCallUpdate, schema.UpdatePlan:
	default:
		return
	}
	ss.flushChunk()
	ss.rec.History = append(ss.rec.History, u)
}

// flushChunk writes the accumulated chunk text into the last history
// entry, as a chunk of its own (the update sent holds the old one), and
// ends the merge; ss.mu must be held.
func (ss *session) flushChunk() {
	if h := ss.rec.History; ss.chunk.Len() > 0 {
		c := chunkOf(&h[len(h)-1])
		blk := (*c).Content
		blk.Text = ss.chunk.String()
		*c = &schema.ContentChunk{Content: blk, MessageID: (*c).MessageID}
	}
	ss.chunk.Reset()
}

// chunkOf is the field of u that holds its message or thought chunk.
func chunkOf(u *schema.SessionUpdate) **schema.ContentChunk {
	switch {
	case u.UserMessageChunk != nil:
		return &u.UserMessageChunk
	case u.AgentMessageChunk != nil:
		return &u.AgentMessageChunk
	}
	return &u.AgentThoughtChunk
}

func mergeable(a, b *schema.ContentChunk) bool {
	return a.Content.Type == schema.BlockText && b.Content.Type == schema.BlockText && a.MessageID == b.MessageID &&
		string(a.Content.Annotations) == string(b.Content.Annotations) // hub's lines apart from the agent's
}

// toAdapterContent converts prompt blocks and expands a leading skill command.
func (ss *session) toAdapterContent(prompt []schema.ContentBlock) []adapters.Content {
	out := make([]adapters.Content, 0, len(prompt))
	for _, b := range prompt {
		c := adapters.Content{Type: adapters.ContentType(b.Type), Text: b.Text, Data: b.Data, MimeType: b.MimeType, URI: b.URI, Name: b.Name}
		if b.Resource != nil {
			c.URI, c.Text, c.MimeType, c.Data = b.Resource.URI, b.Resource.Text, b.Resource.MimeType, cmp.Or(b.Resource.Blob, c.Data)
		}
		out = append(out, c)
	}
	if len(out) > 0 && out[0].Type == adapters.ContentText && strings.HasPrefix(out[0].Text, "/") && ss.srv.opts.Skills != nil {
		name, args, _ := strings.Cut(strings.TrimPrefix(out[0].Text, "/"), " ")
		if p, ok := ss.srv.opts.Skills.Expand(ss.rec.Cwd, name, strings.TrimSpace(args)); ok {
			out[0].Text = p
		}
	}
	return out
}

// fitContent replaces image and audio blocks the session's agent cannot
// take (hub advertises the default agent's abilities, and the session may
// have switched) with a text placeholder, and tells the user once per turn.
func (ss *session) fitContent(content []adapters.Content) []adapters.Content {
	a, err := ss.agents().Get(ss.agentName())
	if err != nil {
		return content
	}
	caps := a.Capabilities()
	var dropped []string
	for i, c := range content {
		if (c.Type == adapters.ContentImage && !caps.Images) || (c.Type == adapters.ContentAudio && !caps.Audio) {
			what := string(c.Type)
			if c.Name != "" || c.URI != "" {
				what += " " + cmp.Or(c.Name, c.URI)
			}
			dropped = append(dropped, what)
			content[i] = adapters.Content{Type: adapters.ContentText,
				Text: fmt.Sprintf("[%s attached, but this agent does not accept %s input]", what, c.Type)}
		}
	}
	if len(dropped) > 0 {
		ss.sayf("Note: %s does not accept %s; the prompt was sent without it.\n", a.Name(), strings.Join(dropped, ", "))
	}
	return content
}

// opened runs after the session/new (or load/resume) response line: it
// announces the skills and starts the agent ahead of the first prompt.
func (ss *session) opened() {
	ss.sendCommands(false)
	if n := ss.set.Notice; n != "" {
		ss.send(schema.SessionUpdate{AgentMessageChunk: &schema.ContentChunk{Content: schema.TextBlock(n + "\n")}})
	}
	ss.agent.LaunchWarm()
}

// sendCommands sends available_commands_update with hub's own commands,
// the skills and the agent's commands; an empty list only when replace is
// set (to clear the editor's list).
func (ss *session) sendCommands(replace bool) {
	if cmds := ss.commands(); len(cmds) > 0 || replace {
		ss.send(schema.SessionUpdate{AvailableCommands: &schema.AvailableCommandsUpdate{AvailableCommands: cmds}})
	}
}

// commands lists hub's commands, then the skills, then the agent's.
func (ss *session) commands() []schema.AvailableCommand {
	var skills []adapters.Command
	if ss.srv.opts.Skills != nil {
		skills = ss.srv.opts.Skills.Commands(ss.rec.Cwd)
	}
	ss.mu.Lock()
	agent := ss.agentCommands
	ss.mu.Unlock()
	var out []schema.AvailableCommand
	for _, c := range slices.Concat(ss.hubCommands(), skills, agent) {
		if slices.ContainsFunc(out, func(o schema.AvailableCommand) bool { return o.Name == c.Name }) {
			continue
		}
		ac := schema.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.InputHint != "" {
			ac.Input = &schema.AvailableCommandInput{Hint: c.InputHint}
		}
		out = append(out, ac)
	}
	return out
}

// askEditor puts what the rules left open to the editor; announce shows a
// tool call the session has not seen before asking.
func (ss *session) askEditor(ctx context.Context, q conversation.Question, announce bool) conversation.Reply {
	p := q.Request
	if announce {
		if u := ss.toolUpdate(p.Tool); u.ToolCall != nil {
			ss.emit(u)
		}
	}
	shown := permissionOptions(p.Options, q.Always)
	options, kept := withGrantOption(q.Grant, shown)
	id, cancelled, err := ss.editor.choose(ctx, ss.editor.tool(p.Tool, true), options)
	switch {
	case cancelled:
		return conversation.Reply{Decision: adapters.PermissionDecision{Cancelled: true}}
	case err != nil:
		ss.srv.log.Warn().Err(err).Msg("permission request failed; treating as reject")
		return conversation.Reply{Decision: adapters.PermissionDecision{Kind: adapters.RejectOnce}, By: conversation.ByUser,
			Reason: "the editor did not answer the permission request"}
	case kept && id == grantOptionID:
		// Kept once, and only once the decision is recorded in its turn: hub
		// itself answers the later calls the grant covers, so the agent is
		// never told to allow more than the user saw.
		return conversation.Reply{Decision: conversation.Allow(p), By: conversation.ByUser, Reason: "the user kept a grant", Then: func() {
			if g, err := q.Keep(); err != nil {
				ss.srv.log.Warn().Err(err).Str("session", ss.id()).Msg("grant not kept")
				ss.sayf("\nhub could not keep this grant beyond the session: %v. It holds for this session only.\n", err)
			} else {
				ss.srv.log.Info().Str("grant", g.ID).Str("covers", g.Covers()).Time("expires", g.Expires).Msg("grant kept")
			}
		}}
	}
	d := adapters.PermissionDecision{OptionID: id, Kind: adapters.RejectOnce} // unknown option id: be safe
	if i := slices.IndexFunc(shown, func(o schema.PermissionOption) bool { return o.OptionID == d.OptionID }); i >= 0 {
		d.Kind = adapters.PermissionOptionKind(shown[i].Kind) // ids are unique (OptionsProblem)
	}
	r := conversation.Reply{Decision: d, By: conversation.ByUser, Reason: "the user allowed it"}
	if !d.Allowed() {
		r.Reason = "the user rejected it"
	}
	return r
}

// grantOptionID is the option hub adds to keep an "always allow" beyond
// the session (a durable grant).
const grantOptionID = "hub_grant"

// withGrantOption adds, right after the agent's own "always allow", the
// option that keeps it for days (named grant, for exactly what it
// covers), when the session keeps grants and the agent offers an "always".
func withGrantOption(grant string, options []schema.PermissionOption) ([]schema.PermissionOption, bool) {
	i := slices.IndexFunc(options, func(o schema.PermissionOption) bool { return o.Kind == string(adapters.AllowAlways) })
	if grant == "" || i < 0 || slices.ContainsFunc(options, func(o schema.PermissionOption) bool { return o.OptionID == grantOptionID }) {
		return options, false
	}
	g := schema.PermissionOption{OptionID: grantOptionID, Name: grant, Kind: string(adapters.AllowAlways)}
	return slices.Insert(options, i+1, g), true
}

// refusal is what the conversation says of a decision: why hub refused a
// call without asking (the deny list, a rule, a hook, bad options);
// nothing for what the user answered, now or "always", or allowed.
func (ss *session) refusal(d *adapters.Decision) []schema.SessionUpdate {
	if d == nil || d.Allowed || d.By == conversation.ByUser || d.By == permission.ByAlways {
		return nil
	}
	ss.srv.log.Warn().Str("session", ss.id()).Str("tool", d.Title).Str("why", d.Reason).Msg("tool call refused")
	text := fmt.Sprintf("\nhub refused %q: %s.\n", cmp.Or(d.Title, "a tool call"), strings.TrimPrefix(d.Reason, "refused: "))
	return []schema.SessionUpdate{hubLine(text)}
}

// permissionOptions are the agent's options the editor is shown (the
// defaults when it offers none valid). An "always allow" is left out when no "always"
// may cover the call (permission.Coverable), so neither hub nor the
// agent keeps one; unless it is the only allow offered.
func permissionOptions(in []adapters.PermissionOption, always bool) []schema.PermissionOption {
	hasOnce := slices.ContainsFunc(in, func(o adapters.PermissionOption) bool { return o.Kind == adapters.AllowOnce })
	out := make([]schema.PermissionOption, 0, len(in))
	for _, o := range in {
		valid := slices.Contains([]adapters.PermissionOptionKind{adapters.AllowOnce, adapters.AllowAlways, adapters.RejectOnce, adapters.RejectAlways}, o.Kind)
		if o.ID == "" || !valid || slices.ContainsFunc(out, func(s schema.PermissionOption) bool { return s.OptionID == o.ID }) ||
			(!always && hasOnce && o.Kind == adapters.AllowAlways) {
			continue
		}
		out = append(out, schema.PermissionOption{OptionID: o.ID, Name: o.Name, Kind: string(o.Kind)})
	}
	if len(out) == 0 { // none, or none valid (C35: never ask with no valid option)
		return permissionOptions(adapters.DefaultPermissionOptions(), always)
	}
	return out
}
