package conversation

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/permission"
	"github.com/hubdev/hub/internal/transcript"
)

// askingSession asks the gate about each call, as a CLI adapter's turn
// does, after playing the events an agent decided itself.
type askingSession struct {
	fakeSession
	ask   adapters.PermissionFunc
	calls []adapters.ToolCall
}

func (s *askingSession) Prompt(ctx context.Context, p []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
	stop, err := s.fakeSession.Prompt(ctx, p, emit)
	for _, c := range s.calls {
		s.ask(ctx, adapters.NewPermissionRequest(c, nil))
	}
	return stop, err
}

// Every decision of a turn, the gate's or the agent's own, is one event of
// the turn: the front end gets it once, the audit records it once, and a
// refusal is in the digest's list, whatever refused it.
func TestRunTurn_EveryDecisionIsOneEventOfTheTurn(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	ownRefusal := adapters.Event{Type: adapters.EventDecision, Decision: &adapters.Decision{ToolID: "n1", Title: "bash", By: "hard deny", Reason: "hard deny: rm -rf ~"}}
	tests := []struct {
		name    string
		own     []adapters.Event
		calls   []adapters.ToolCall
		answer  Approve
		refused []string // the digest's refusals, by tool id
	}{
		{name: "the gate refuses", calls: []adapters.ToolCall{command("rm -rf ~")}, answer: ApproveAll, refused: []string{"t"}},
		{name: "the gate allows", calls: []adapters.ToolCall{command("ls")}, answer: ApproveAll},
		{name: "--approve refuses", calls: []adapters.ToolCall{command("ls")}, answer: ApproveNone, refused: []string{"t"}},
		{name: "the agent refuses itself", own: []adapters.Event{ownRefusal}, answer: ApproveAll, refused: []string{"n1"}},
		{name: "both", own: []adapters.Event{ownRefusal}, calls: []adapters.ToolCall{command("rm -rf ~")}, answer: ApproveAll, refused: []string{"n1", "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			gate, err := NewGate(GateOptions{Cwd: t.TempDir(), Answerer: tt.answer})
			if err != nil {
				t.Fatal(err)
			}
			sess := &askingSession{fakeSession: fakeSession{events: tt.own, stop: adapters.StopEndTurn}, ask: gate.Ask, calls: tt.calls}
			audit := transcript.NewAudit(dir, transcript.Meta{ID: "s1", Agent: "test"}, func(err error) { t.Error(err) })
			var emitted int
			oc, err := RunTurn(context.Background(), TurnSpec{Agent: "test", Session: sess, Prompt: adapters.TextPrompt("go"), Audit: audit, Gate: gate,
				Emit: func(ev adapters.Event) {
					if ev.Type == adapters.EventDecision {
						emitted++
					}
				}})
			audit.Close()
			if err != nil {
				t.Fatal(err)
			}
			want := len(tt.own) + len(tt.calls)
			recs, err := transcript.Read(dir, "s1")
			if err != nil {
				t.Fatal(err)
			}
			audited := 0
			for _, r := range recs {
				if r.Event != nil && r.Event.Type == adapters.EventDecision {
					audited++
				}
			}
			var refused []string
			for _, r := range oc.Digest.Refused {
				refused = append(refused, r.ToolID)
				if r.Reason == "" {
					t.Errorf("refusal %+v gives no reason", r)
				}
			}
			if emitted != want || audited != want || !slices.Equal(refused, tt.refused) {
				t.Errorf("emitted %d, audited %d decisions (want %d each); refused %q, want %q", emitted, audited, want, refused, tt.refused)
			}
		})
	}
}

// lateSession ends its turn while the gate still decides a call it asked
// about (an agent whose request outlives its turn).
type lateSession struct {
	fakeSession
	gate    *Gate
	asking  chan struct{}
	decided chan adapters.PermissionDecision
}

func (s *lateSession) Prompt(context.Context, []adapters.Content, func(adapters.Event)) (adapters.StopReason, error) {
	go func() {
		s.decided <- s.gate.Ask(context.Background(), adapters.NewPermissionRequest(command("go build ./..."), nil))
	}()
	<-s.asking
	return adapters.StopEndTurn, nil
}

// A decision is recorded within its turn, before the turn's end, or not
// at all, and then it allows nothing and keeps no "always": an answer
// that comes after the turn ended, or while it ends, is never audited
// after the end record.
func TestRunTurn_NoDecisionAfterTheTurnEnd(t *testing.T) {
	for _, answerAfterTheEnd := range []bool{true, false} {
		dir := t.TempDir()
		asking, release := make(chan struct{}), make(chan struct{})
		var kept atomic.Bool // the durable grant the user picked
		gate, err := NewGate(GateOptions{Cwd: t.TempDir(), Answerer: AnswerFunc(func(_ context.Context, q Question) Reply {
			close(asking)
			<-release
			o, _ := q.Request.OptionFor(adapters.AllowAlways)
			return Reply{Decision: adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}, By: ByUser, Then: func() { kept.Store(true) }}
		})})
		if err != nil {
			t.Fatal(err)
		}
		sess := &lateSession{gate: gate, asking: asking, decided: make(chan adapters.PermissionDecision, 1)}
		audit := transcript.NewAudit(dir, transcript.Meta{ID: "s1", Agent: "test"}, func(err error) { t.Error(err) })
		if !answerAfterTheEnd {
			go func() { <-asking; close(release) }() // races the turn's end
		}
		if _, err := RunTurn(context.Background(), TurnSpec{Agent: "test", Session: sess, Prompt: adapters.TextPrompt("go"), Audit: audit, Gate: gate}); err != nil {
			t.Fatal(err)
		}
		if answerAfterTheEnd {
			close(release)
		}
		d := <-sess.decided
		audit.Close()
		recs, err := transcript.Read(dir, "s1")
		if err != nil {
			t.Fatal(err)
		}
		end := slices.IndexFunc(recs, func(r transcript.Record) bool { return r.Type == transcript.TypeTurnEnd })
		decision := slices.IndexFunc(recs, func(r transcript.Record) bool { return r.Event != nil && r.Event.Type == adapters.EventDecision })
		_, remembered := gate.Rules().Decide(permission.RequestOf(command("go build ./..."), gate.o.Cwd))
		switch {
		case end < 0 || decision > end:
			t.Errorf("answer after the end %v: decision record %d after the turn end %d", answerAfterTheEnd, decision, end)
		case decision < 0 && (!d.Cancelled || remembered || kept.Load()):
			t.Errorf("answer after the end %v: unrecorded decision %+v allowed the call (remembered %v, grant kept %v)", answerAfterTheEnd, d, remembered, kept.Load())
		case answerAfterTheEnd && decision >= 0:
			t.Errorf("a decision taken after its turn ended was recorded")
		}
	}
}
