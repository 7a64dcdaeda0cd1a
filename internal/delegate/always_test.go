package delegate

import (
	"context"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/replay"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/conversation/delegation"
)

// A delegate's "always", answered by whoever its questions go to (hub
// acp's editor), is kept by its gate: the delegate's next ask of the same
// command, in a follow-up turn, runs without asking again (the agent
// hears "allow once" each time: conversation's TestGate_AgentHearsAllowOnceForAnAlways).
func TestDelegate_AlwaysHoldsForTheDelegatesNextTurn(t *testing.T) {
	perm := `{"permission":{"tool":{"id":"t1","name":"Bash","title":"go test ./...","kind":"execute","rawInput":{"command":"go test ./..."}}},` +
		`"allowed":[{"event":{"type":"text","text":"ran"}}],"rejected":[{"event":{"type":"text","text":"skipped"}}]}`
	helper := replay.New(scriptFile(t, perm, `{"turn":true}`, perm))
	helper.AgentName = "helper"
	reg := adapters.NewRegistry()
	reg.Register(helper)
	var mu sync.Mutex
	var asked int
	var heard []adapters.PermissionOptionKind
	d := delegation.New(delegation.Options{Registry: reg, Cwd: t.TempDir(), Log: zerolog.Nop(),
		Ask: func(_ context.Context, _, _ string, q conversation.Question) conversation.Reply {
			mu.Lock()
			asked++
			mu.Unlock()
			o, _ := q.Request.OptionFor(adapters.AllowAlways)
			return conversation.Reply{Decision: adapters.PermissionDecision{OptionID: o.ID, Kind: o.Kind}, By: conversation.ByUser}
		},
		Observe: func(_, _ string, ev adapters.Event) {
			if ev.Type == adapters.EventDecision && ev.Permission != nil {
				mu.Lock()
				heard = append(heard, ev.Decision.Answer.Kind)
				mu.Unlock()
			}
		}})
	defer d.Close()
	r, err := d.Delegate(context.Background(), delegation.Request{Agent: "helper", Prompt: "test it"}, nil)
	if err != nil || r.Answer != "ran" {
		t.Fatalf("first turn: %+v, %v", r, err)
	}
	if r, err = d.Delegate(context.Background(), delegation.Request{Session: r.Session, Prompt: "again"}, nil); err != nil || r.Answer != "ran" {
		t.Fatalf("follow-up: %+v, %v", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 || len(heard) != 2 {
		t.Fatalf("asked %d times, %d decisions; want the user asked once, the second call answered by the always", asked, len(heard))
	}
}
