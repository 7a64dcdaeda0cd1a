package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/handover"
)

// The briefing an agent switched to gets holds the turn as hub run's and
// a delegate's record hold it (conversation.Digest): the same answer, the
// same tools, the same plan, whatever the shape of the turn.
func TestBriefing_AgreesWithTheDigest(t *testing.T) {
	text := func(id, s string) adapters.Event {
		return adapters.Event{Type: adapters.EventText, MessageID: id, Text: s}
	}
	tool := func(id, title string, st adapters.ToolStatus) adapters.Event {
		return adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: id, Title: title, Kind: adapters.KindExecute, Status: st}}
	}
	plan := adapters.Event{Type: adapters.EventPlan, Plan: []adapters.PlanEntry{{Content: "fix the parser", Priority: "high", Status: "in_progress"}}}
	for _, tc := range []struct {
		name   string
		events []adapters.Event
	}{
		{"text before and after a tool call, in two messages", []adapters.Event{text("m1", "Let me look."), tool("t1", "Read a.go", adapters.StatusCompleted),
			text("m2", "Found it."), text("m3", "Fixed it.")}},
		{"only whitespace after the tool call", []adapters.Event{text("", "I will run the tests."), tool("t1", "go test", adapters.StatusCompleted), text("", "\n")}},
		{"a failed tool and a plan", []adapters.Event{plan, tool("t1", "go test", adapters.StatusFailed), text("", "The tests fail.")}},
		{"no tool", []adapters.Event{text("m1", "Done."), text("m2", "Anything else?")}},
		{"a non-fatal error within the answer", []adapters.Event{text("", "Let me look."),
			{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "rate limited; retrying", Code: adapters.CodeProvider}}, text("", " Found it.")}},
		{"a refusal between two texts", []adapters.Event{text("", "I will clean up."), {Type: adapters.EventDecision,
			Decision: &adapters.Decision{ToolID: "t1", Title: "rm -rf ~", By: "hard deny", Reason: "refused: it deletes your home"}}, text("", " I did not.")}},
		{"a tool with neither title nor name", []adapters.Event{tool("t1", "", adapters.StatusCompleted), text("", "Done.")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines []string
			var d conversation.Digest
			for _, ev := range tc.events {
				b, _ := json.Marshal(map[string]any{"event": ev})
				lines = append(lines, string(b))
				d.Note(ev)
			}
			var want handover.Brief
			d.AddTo(&want, "fix the parser")
			second := &forgetful{instructions: true}
			c := newClient(t, scriptFile(t, lines...), func(o *Options) { o.Registry.Register(renamed{second, "second"}) })
			sid, _ := c.start(t)
			c.prompt(sid, "fix the parser")
			switchTo(c, sid, "second")
			c.prompt(sid, "go on")
			second.mu.Lock()
			defer second.mu.Unlock()
			if got, want := second.instr[0], strings.TrimSpace(handover.Render(want)); got != want {
				t.Errorf("the briefing:\n%s\nhub run's record of the same turn:\n%s", got, want)
			}
		})
	}
}
