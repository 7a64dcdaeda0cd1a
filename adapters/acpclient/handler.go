package acpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/permission"
)

// notify serves the agent's notifications inline: they only queue events,
// and their order matters.
func (s *Session) notify(r *jsonrpc.Request) {
	switch r.Method {
	case "session/update":
		s.onUpdate(r.Params)
	case "$/cancel_request": // the conn ended the withdrawn request's ctx
	default:
		s.onUnknown(r.Method, r.Params)
	}
}

// request serves the agent's requests on their own goroutines: they may
// wait for the user or the editor.
func (s *Session) request(ctx context.Context, r *jsonrpc.Request) jsonrpc.Job {
	return func() (any, func(), error) {
		res, err := s.serve(ctx, r.Method, r.Params)
		return res, nil, err
	}
}

func (s *Session) onUpdate(params json.RawMessage) {
	update := updateOf(params)
	if len(update) == 0 {
		return
	}
	evs := s.dec.DecodeUpdate(update)
	s.local.inlineTerminals(evs)
	s.mu.Lock()
	t := s.turn.Current()
	if t == nil {
		s.keepBetweenTurns(evs)
	}
	s.mu.Unlock()
	if t != nil {
		t.Emit(evs...)
	}
}

// onUnknown passes a method hub does not serve to the running turn, raw.
func (s *Session) onUnknown(method string, params json.RawMessage) {
	if ev := methodEvent(method, params); !s.turn.Emit(ev) {
		s.raw.Note(ev.Source) // a turn notes its own
	}
}

// specUnmapped are ACP update kinds hub leaves raw without a warning
// (replayed user turns, mode and config echoes).
var specUnmapped = []string{"acp:" + schema.UpdateUserMessageChunk, "acp:" + schema.UpdateCurrentMode, "acp:" + schema.UpdateConfigOption}

// unknownRecords warns about the records of a session that hub does not
// understand, naming the version the agent reported in initialize.
func unknownRecords(cfg Config, version func() string) *adapters.UnknownRecords {
	return adapters.NewUnknownRecords(cfg.Logger, cfg.Name, cfg.Caps.TestedVersions, adapters.UnknownOptions{
		Version: version,
		Quiet: func(source string) bool { // "_" methods are extensions any client may ignore
			return strings.HasPrefix(source, "acp:_") || slices.Contains(specUnmapped, source)
		}})
}

// methodEvent is the raw event of an agent-to-client method hub does not serve.
func methodEvent(method string, params json.RawMessage) adapters.Event {
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	raw, _ := json.Marshal(struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}{method, params})
	return adapters.Event{Type: adapters.EventRaw, Source: "acp:" + method, Raw: raw}
}

// Note passes ev to the running turn as the agent's own (what it says
// outside ACP, such as gemini's retries); between turns it is dropped.
func (s *Session) Note(ev adapters.Event) { s.turn.Emit(ev) }

// keepBetweenTurns holds session-level updates arriving outside a turn for
// the next turn; others, such as the history session/load replays, drop.
func (s *Session) keepBetweenTurns(evs []adapters.Event) {
	for _, ev := range evs {
		if ev.Type == adapters.EventUsage { // its cost moved the decoder's baseline: no turn's
			u := *ev.Usage
			u.CostUSD, ev.Usage = nil, &u
		}
		switch ev.Type {
		case adapters.EventCommands, adapters.EventSessionInfo, adapters.EventUsage:
			s.pending = append(s.pending, ev)
			if ev.Type == adapters.EventCommands {
				if s.commands == nil { // the first: acpCommands is never nil
					close(s.commandsKept)
				}
				s.commands = ev.Commands
			}
		case adapters.EventRaw:
			s.raw.Note(ev.Source) // a turn notes its own
		default:
			s.a.cfg.Logger.Debug().Str("type", string(ev.Type)).Msg("acp: update outside a turn dropped")
		}
	}
}

func (s *Session) serve(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch {
	case method == "session/request_permission":
		return s.requestPermission(ctx, params)
	case strings.HasPrefix(method, "fs/"), strings.HasPrefix(method, "terminal/"):
		if !s.advertised(method) {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+method+" (hub did not offer it in initialize)", nil)
		}
		if s.opts.Editor != nil { // what hub offered is what the editor can do
			return s.opts.Editor.Call(ctx, method, params)
		}
		return s.local.serve(ctx, method, params)
	}
	s.onUnknown(method, params)
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+method, nil)
}

// clientCaps is what hub offers the agent in initialize: the editor's fs
// and terminal methods, or with no editor hub's own (local.go).
func (s *Session) clientCaps() schema.ClientCapabilities {
	ed := s.opts.Editor
	if ed == nil {
		return schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}
	}
	return schema.ClientCapabilities{FS: schema.FileSystemCapabilities{ReadTextFile: ed.CanReadFile(), WriteTextFile: ed.CanWriteFile()}, Terminal: ed.CanTerminal()}
}

// advertised reports whether hub offered method in initialize; the
// others are refused, whoever could serve them.
func (s *Session) advertised(method string) bool {
	c := s.clientCaps()
	fs := map[string]bool{"fs/read_text_file": c.FS.ReadTextFile, "fs/write_text_file": c.FS.WriteTextFile}
	return fs[method] || strings.HasPrefix(method, "terminal/") && c.Terminal
}

var cancelledOutcome = schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "cancelled"}}

func (s *Session) requestPermission(ctx context.Context, params json.RawMessage) (any, error) {
	pr, err := s.dec.DecodePermission(params)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid session/request_permission params: "+err.Error(), nil)
	}
	t := s.turn.Current()
	if t == nil || t.IsCancelled() {
		return cancelledOutcome, nil
	}
	return decide(pr, t.Ask(ctx, pr)), nil
}

// decide maps hub's decision onto one of the agent's own options: the
// chosen id if offered, else one of the decided kind (or its once/always
// sibling), else "cancelled": the tool must not run. Options that share an
// id (permission.OptionsProblem) are answered "cancelled" too.
func decide(pr *adapters.PermissionRequest, d adapters.PermissionDecision) schema.RequestPermissionResponse {
	if d.Cancelled || permission.OptionsProblem(pr.Options) != "" {
		return cancelledOutcome
	}
	for _, o := range pr.Options {
		if d.OptionID != "" && o.ID == d.OptionID && (d.Kind == "" || d.Kind == o.Kind) {
			return selected(o.ID)
		}
	}
	siblings := map[adapters.PermissionOptionKind]adapters.PermissionOptionKind{
		adapters.AllowOnce: adapters.AllowAlways, adapters.AllowAlways: adapters.AllowOnce,
		adapters.RejectOnce: adapters.RejectAlways, adapters.RejectAlways: adapters.RejectOnce,
	}
	for _, k := range []adapters.PermissionOptionKind{d.Kind, siblings[d.Kind]} {
		if o, ok := pr.OptionFor(k); ok && k != "" {
			return selected(o.ID)
		}
	}
	return cancelledOutcome
}

func selected(id string) schema.RequestPermissionResponse {
	return schema.RequestPermissionResponse{Outcome: schema.RequestPermissionOutcome{Outcome: "selected", OptionID: id}}
}

// askLocal asks the hard deny list, then the running turn, for a method hub
// serves itself. The call shows as a tool call, which done ends once it ran.
func (s *Session) askLocal(ctx context.Context, tc adapters.ToolCall) (done func(ok bool), err error) {
	t := s.turn.Current()
	if t == nil || t.IsCancelled() {
		return nil, rpcErr(codeRefused, "hub refused %s: no prompt is running", tc.Title)
	}
	card := tc
	card.Status = adapters.StatusPending
	t.Emit(adapters.Event{Type: adapters.EventToolCall, Tool: &card})
	done = func(ok bool) {
		st := adapters.StatusCompleted
		if !ok {
			st = adapters.StatusFailed
		}
		t.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: tc.ID, Status: st}})
	}
	refuse := func(why string) error {
		msg := fmt.Sprintf("hub refused %s: %s", tc.Title, why)
		t.Emit(adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: tc.ID, Status: adapters.StatusFailed,
			Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: msg}}}})
		return rpcErr(codeRefused, "%s", msg)
	}
	if reason, denied := permission.HardDeny(permission.RequestOf(tc, s.opts.Cwd)); denied {
		return nil, refuse("hard deny: " + reason)
	}
	switch d := t.Ask(ctx, adapters.NewPermissionRequest(tc, nil)); {
	case d.Cancelled:
		return nil, refuse("the turn was cancelled")
	case !d.Allowed():
		return nil, refuse("permission rejected")
	}
	return done, nil
}
