package conversation

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/permission"
)

// gateRun is a gate under test: the decisions it emitted and the
// questions its answerer got.
type gateRun struct {
	gate   *Gate
	events []adapters.Event
	asked  int
}

func newGateRun(t *testing.T, o GateOptions, answer Answerer) *gateRun {
	t.Helper()
	r := &gateRun{}
	o.Answerer = AnswerFunc(func(ctx context.Context, q Question) Reply {
		r.asked++
		return answer.Answer(ctx, q)
	})
	g, err := NewGate(o)
	if err != nil {
		t.Fatal(err)
	}
	emit := func(ev adapters.Event) { r.events = append(r.events, ev) }
	g.begin(emit) // as RunTurn does: the gate decides within a turn
	r.gate = g
	return r
}

// ask asks once and checks that exactly one decision event says what the
// gate answered.
func (r *gateRun) ask(t *testing.T, tool adapters.ToolCall, opts []adapters.PermissionOption, refusal ...*adapters.Refusal) (adapters.PermissionDecision, *adapters.Decision) {
	t.Helper()
	before := len(r.events)
	req := adapters.NewPermissionRequest(tool, opts)
	if len(refusal) > 0 {
		req.Refusal = refusal[0]
	}
	d := r.gate.Ask(context.Background(), req)
	if len(r.events) != before+1 {
		t.Fatalf("%d decision events, want 1", len(r.events)-before)
	}
	ev := r.events[len(r.events)-1]
	if ev.Type != adapters.EventDecision || ev.Decision == nil || ev.Decision.Allowed != d.Allowed() || ev.Decision.ToolID != tool.ID {
		t.Fatalf("event %+v does not report the decision %+v", ev, d)
	}
	return d, ev.Decision
}

func toolCall(kind adapters.ToolKind, raw string, locs ...string) adapters.ToolCall {
	tc := adapters.ToolCall{ID: "t", Kind: kind, RawInput: json.RawMessage(raw)}
	for _, l := range locs {
		tc.Locations = append(tc.Locations, adapters.Location{Path: l})
	}
	return tc
}

func command(c string) adapters.ToolCall {
	b, _ := json.Marshal(c)
	return toolCall(adapters.KindExecute, `{"command":`+string(b)+`}`)
}

// Each decider takes its decision, names itself in exactly one decision
// event, and gives a one-line reason for a refusal; the Answerer is asked
// only what the rules leave open, and --approve refuses what must be
// asked, reads a call carrying a command as the command it is, and never
// answers by an id two options share.
func TestGate_EachDeciderDecidesOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	cwd := t.TempDir()
	rules := config.PermissionsConfig{Rules: []config.PermissionRule{
		{Tool: "bash", Command: "git push", Decision: "deny"}, {Tool: "bash", Command: "make", Decision: "allow"}}}
	dup := []adapters.PermissionOption{{ID: "x", Name: "Allow once", Kind: adapters.AllowOnce}, {ID: "x", Name: "Always", Kind: adapters.AllowAlways},
		{ID: "r", Name: "Reject", Kind: adapters.RejectOnce}}
	tests := []struct {
		name    string
		rules   config.PermissionsConfig
		extra   []string // --allow-tool patterns
		answer  Approve
		tool    adapters.ToolCall
		opts    []adapters.PermissionOption
		allowed bool
		by      string
		asked   bool
		refusal *adapters.Refusal // decided before the gate (a persona's deny rules)
	}{
		{name: "hard deny beats --approve all", answer: ApproveAll, tool: command("rm -rf ~"), by: permission.ByHardDeny},
		{name: "argv rm -rf ~", answer: ApproveAll, tool: toolCall(adapters.KindExecute, `{"command":["bash","-lc","rm -rf ~"]}`), by: permission.ByHardDeny},
		{name: "deny rule", rules: rules, answer: ApproveAll, tool: command("git push origin main"), by: permission.ByRule},
		{name: "allow rule lifts none", rules: rules, answer: ApproveNone, tool: command("make test"), allowed: true, by: permission.ByRule},
		{name: "--allow-tool", extra: []string{"Bash(go test:*)"}, answer: ApproveNone, tool: command("go test ./..."), allowed: true, by: permission.ByAllowTool},
		{name: "--allow-tool only its command", extra: []string{"Bash(go test:*)"}, answer: ApproveReadOnly, tool: command("rm -rf build"), by: ByApprove, asked: true},
		{name: "secret read must be asked", answer: ApproveAll, tool: toolCall(adapters.KindRead, `{}`, filepath.Join(cwd, ".env")), by: ByApprove, asked: true},
		{name: "secret path in rawInput", answer: ApproveAll, tool: toolCall(adapters.KindRead, `{"file_path":".env"}`), by: ByApprove, asked: true},
		{name: "cat .env", answer: ApproveAll, tool: command("cat .env"), by: ByApprove, asked: true},
		{name: "kind other, nothing to read", answer: ApproveAll, tool: toolCall(adapters.KindOther, `{"payload":"x"}`), by: ByApprove, asked: true},
		{name: "no kind", answer: ApproveAll, tool: adapters.ToolCall{ID: "t"}, by: ByApprove, asked: true},
		{name: "kind read carrying a command", answer: ApproveReadOnly, tool: toolCall(adapters.KindRead, `{"command":"touch x"}`), by: ByApprove, asked: true},
		{name: "answerer allows", answer: ApproveAll, tool: command("ls"), allowed: true, by: ByApprove, asked: true},
		{name: "answerer rejects", answer: ApproveNone, tool: command("ls"), by: ByApprove, asked: true},
		{name: "plain read under read-only", answer: ApproveReadOnly, tool: toolCall(adapters.KindRead, `{}`, filepath.Join(cwd, "a.go")), allowed: true, by: ByApprove, asked: true},
		{name: "env template under read-only", answer: ApproveReadOnly, tool: toolCall(adapters.KindRead, `{}`, filepath.Join(cwd, ".env.example")), allowed: true, by: ByApprove, asked: true},
		{name: "duplicate option ids", answer: ApproveAll, tool: command("ls"), opts: dup, by: ByHub},
		{name: "a persona's refusal beats an allow rule", rules: rules, answer: ApproveAll, tool: command("make test"),
			refusal: &adapters.Refusal{By: "persona reviewer", Reason: "reviewer does not list Bash"}, by: "persona reviewer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newGateRun(t, GateOptions{Rules: tt.rules, Cwd: cwd}, tt.answer)
			for _, pat := range tt.extra {
				rule, err := permission.AllowRule(pat, "--allow-tool "+pat)
				if err != nil {
					t.Fatal(err)
				}
				r.gate.Rules().Add(rule)
			}
			d, ev := r.ask(t, tt.tool, tt.opts, tt.refusal)
			if d.Allowed() != tt.allowed || ev.By != tt.by || (r.asked > 0) != tt.asked {
				t.Fatalf("allowed %v by %q (%s), asked %d; want %v by %q, asked %v", d.Allowed(), ev.By, ev.Reason, r.asked, tt.allowed, tt.by, tt.asked)
			}
			if !tt.allowed && (ev.Reason == "" || strings.Contains(ev.Reason, "\n")) {
				t.Errorf("reason %q is not one line", ev.Reason)
			}
			if d.OptionID == "x" {
				t.Errorf("answered with the shared id %q", d.OptionID)
			}
		})
	}
}

// An "always" answer is the gate's: the next such call is decided by it,
// without asking again.
func TestGate_AlwaysAnswerIsRemembered(t *testing.T) {
	allowAlways := AnswerFunc(func(_ context.Context, q Question) Reply {
		o, _ := q.Request.OptionFor(adapters.AllowAlways)
		return Reply{Decision: adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}, By: ByUser}
	})
	r := newGateRun(t, GateOptions{Cwd: t.TempDir()}, allowAlways)
	if _, ev := r.ask(t, command("go build ./..."), nil); !ev.Allowed || ev.By != ByUser {
		t.Fatalf("first answer %+v", ev)
	}
	if _, ev := r.ask(t, command("go build ./..."), nil); !ev.Allowed || ev.By != permission.ByAlways || r.asked != 1 {
		t.Fatalf("second call %+v, asked %d times", ev, r.asked)
	}
}

// An "always" is the gate's alone: the agent hears "allow once" where it
// offers it, so its own always (gemini's "Always Allow git", its auto-edit
// after "Allow All Edits", codex's session approval) never lets it skip
// the gate, and hub's deny rules, for a later call nobody saw; the record
// keeps what the user answered. An agent that offers no "allow once" gets
// the always.
func TestGate_AgentHearsAllowOnceForAnAlways(t *testing.T) {
	gemini := []adapters.PermissionOption{{ID: "proceed_always", Name: "Always Allow git", Kind: adapters.AllowAlways},
		{ID: "proceed_once", Name: "Allow", Kind: adapters.AllowOnce}, {ID: "cancel", Name: "Reject", Kind: adapters.RejectOnce}}
	onlyAlways := []adapters.PermissionOption{{ID: "always", Name: "Always", Kind: adapters.AllowAlways}, {ID: "no", Name: "No", Kind: adapters.RejectOnce}}
	allowAlways := AnswerFunc(func(_ context.Context, q Question) Reply {
		o, _ := q.Request.OptionFor(adapters.AllowAlways)
		return Reply{Decision: adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}, By: ByUser}
	})
	for _, tc := range []struct {
		name    string
		opts    []adapters.PermissionOption
		agentID string
	}{
		{"gemini's options", gemini, "proceed_once"},
		{"no allow once", onlyAlways, "always"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGateRun(t, GateOptions{Cwd: t.TempDir()}, allowAlways)
			d, ev := r.ask(t, command("git status"), tc.opts)
			if d.OptionID != tc.agentID || ev.Answer.Kind != adapters.AllowAlways {
				t.Fatalf("the agent heard %+v, the record says %+v; want %q, and always recorded", d, ev.Answer, tc.agentID)
			}
			if d, ev := r.ask(t, command("git status"), tc.opts); d.OptionID != tc.agentID || ev.By != permission.ByAlways || r.asked != 1 {
				t.Fatalf("the same call again: %+v by %s, asked %d times; want the gate's always", d, ev.By, r.asked)
			}
		})
	}
}

// An answer that comes after the question ended (the agent withdrew it,
// the turn was cancelled) decides nothing: no event, no "always" kept for
// the next call, which is asked again.
func TestGate_LateAnswerIsNoDecision(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	kept := false
	late := AnswerFunc(func(_ context.Context, q Question) Reply {
		cancel() // the question ends while the user answers "always", and a grant
		o, _ := q.Request.OptionFor(adapters.AllowAlways)
		return Reply{Decision: adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}, By: ByUser, Then: func() { kept = true }}
	})
	r := newGateRun(t, GateOptions{Cwd: t.TempDir()}, late)
	if d := r.gate.Ask(ctx, adapters.NewPermissionRequest(command("go build ./..."), nil)); !d.Cancelled || len(r.events) != 0 || kept {
		t.Fatalf("late answer gave %+v, %d events, grant kept %v", d, len(r.events), kept)
	}
	if _, ev := r.ask(t, command("go build ./..."), nil); ev.By != ByUser || r.asked != 2 {
		t.Fatalf("next call %+v, asked %d times; want asked again", ev, r.asked)
	}
}

// A grant the user kept is the gate's grant store: a later session of
// the same project is allowed by it without asking.
func TestGate_KeptGrantAllowsTheNextSession(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	o := GateOptions{Cwd: t.TempDir(), Agent: "claude", Grants: permission.OpenGrants(filepath.Join(t.TempDir(), "grants.json"), nil)}
	keep := AnswerFunc(func(_ context.Context, q Question) Reply {
		if q.Grant == "" {
			t.Fatal("no grant offered")
		}
		if _, err := q.Keep(); err != nil {
			t.Fatal(err)
		}
		return Reply{Decision: Allow(q.Request), By: ByUser}
	})
	first := newGateRun(t, o, keep)
	first.ask(t, command("go test ./..."), nil)
	next := newGateRun(t, o, ApproveNone)
	if _, ev := next.ask(t, command("go test ./..."), nil); !ev.Allowed || ev.By != permission.ByGrant || next.asked != 0 {
		t.Fatalf("next session %+v, asked %d times", ev, next.asked)
	}
}

// A request outside a turn (before the first, after one ended) has no
// event chain to record a decision in, so the gate takes none: the call is
// cancelled and nobody is asked, whatever the rules or --approve say.
func TestGate_OutsideATurnDecidesNothing(t *testing.T) {
	tests := []struct {
		name   string
		tool   adapters.ToolCall
		answer Answerer
	}{
		{"--approve all", command("ls"), ApproveAll},
		{"a hard deny", command("rm -rf ~"), ApproveAll},
		{"--approve none", command("ls"), ApproveNone},
		{"the user", toolCall(adapters.KindEdit, `{}`), AnswerFunc(func(_ context.Context, q Question) Reply {
			return Reply{Decision: Allow(q.Request), By: ByUser}
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := 0
			gate, err := NewGate(GateOptions{Cwd: t.TempDir(), Answerer: AnswerFunc(func(ctx context.Context, q Question) Reply {
				asked++
				return tt.answer.Answer(ctx, q)
			})})
			if err != nil {
				t.Fatal(err)
			}
			before := gate.Ask(context.Background(), adapters.NewPermissionRequest(tt.tool, nil))
			sess := &fakeSession{stop: adapters.StopEndTurn}
			if _, err := RunTurn(context.Background(), TurnSpec{Agent: "test", Session: sess, Prompt: adapters.TextPrompt("go"), Gate: gate}); err != nil {
				t.Fatal(err)
			}
			after := gate.Ask(context.Background(), adapters.NewPermissionRequest(tt.tool, nil))
			if !before.Cancelled || !after.Cancelled || asked != 0 {
				t.Fatalf("before the turn %+v, after it %+v, asked %d times; want both cancelled, nobody asked", before, after, asked)
			}
		})
	}
}

// A refused tool call is named in the gate's record as the digest names
// the call itself (its title, else its name, else its id), so the refusal
// a front end shows and the tool line it showed before agree.
func TestGate_RefusalNamesTheToolAsTheDigest(t *testing.T) {
	tests := []struct {
		name string
		tool adapters.ToolCall
		want string
	}{
		{"titled", adapters.ToolCall{ID: "t1", Title: "rm -rf ~", Name: "bash"}, "rm -rf ~"},
		{"named", adapters.ToolCall{ID: "t2", Name: "bash"}, "bash"},
		{"neither", adapters.ToolCall{ID: "t3"}, "t3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := command("rm -rf ~") // a hard deny
			tool.ID, tool.Title, tool.Name = tt.tool.ID, tt.tool.Title, tt.tool.Name
			r := newGateRun(t, GateOptions{Cwd: t.TempDir()}, ApproveAll)
			_, dec := r.ask(t, tool, nil)
			var d Digest
			d.Note(adapters.Event{Type: adapters.EventToolCall, Tool: &tool})
			d.Note(r.events[len(r.events)-1])
			if len(d.Refused) != 1 || len(d.ToolCalls) != 1 {
				t.Fatalf("refused %+v, tool calls %+v; want one each", d.Refused, d.ToolCalls)
			}
			if dec.Title != tt.want || d.Refused[0].Title != tt.want || d.ToolCalls[0].Title != tt.want {
				t.Fatalf("decision %q, refusal %q, tool call %q; want all %q", dec.Title, d.Refused[0].Title, d.ToolCalls[0].Title, tt.want)
			}
		})
	}
}

// A cancelled turn's request is no decision: no event.
func TestGate_CancelledIsNoDecision(t *testing.T) {
	r := newGateRun(t, GateOptions{Cwd: t.TempDir()}, ApproveAll)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := r.gate.Ask(ctx, adapters.NewPermissionRequest(command("ls"), nil)); !d.Cancelled || len(r.events) != 0 {
		t.Fatalf("decision %+v, %d events", d, len(r.events))
	}
}
