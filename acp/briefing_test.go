package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/handover"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/proc/proctest"
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
	failing, err := hooks.New(map[string][]config.HookConfig{"Stop": {{Command: proctest.ShellCommand("err:notifier down\n", "exit:1")}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		events []adapters.Event
		hooks  *hooks.Runner // hub's own notice of a failed hook ends the turn
	}{
		{"a failed hook's notice after the answer", []adapters.Event{text("", "Done.")}, failing},
		{"text before and after a tool call, in two messages", []adapters.Event{text("m1", "Let me look."), tool("t1", "Read a.go", adapters.StatusCompleted),
			text("m2", "Found it."), text("m3", "Fixed it.")}, nil},
		{"only whitespace after the tool call", []adapters.Event{text("", "I will run the tests."), tool("t1", "go test", adapters.StatusCompleted), text("", "\n")}, nil},
		{"a failed tool and a plan", []adapters.Event{plan, tool("t1", "go test", adapters.StatusFailed), text("", "The tests fail.")}, nil},
		{"no tool", []adapters.Event{text("m1", "Done."), text("m2", "Anything else?")}, nil},
		{"a non-fatal error within the answer", []adapters.Event{text("", "Let me look."),
			{Type: adapters.EventError, Error: &adapters.ErrorInfo{Message: "rate limited; retrying", Code: adapters.CodeProvider}}, text("", " Found it.")}, nil},
		{"a refusal between two texts", []adapters.Event{text("", "I will clean up."), {Type: adapters.EventDecision,
			Decision: &adapters.Decision{ToolID: "t1", Title: "rm -rf ~", By: "hard deny", Reason: "refused: it deletes your home"}}, text("", " I did not.")}, nil},
		{"a tool with neither title nor name", []adapters.Event{tool("t1", "", adapters.StatusCompleted), text("", "Done.")}, nil},
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
			c := newClient(t, scriptFile(t, lines...), func(o *Options) {
				o.Registry.Register(renamed{second, "second"})
				o.Settings = everywhere(Settings{Hooks: tc.hooks})
			})
			sid, _ := c.start(t)
			c.prompt(sid, "fix the parser")
			if tc.hooks != nil && !strings.Contains(c.agentText(sid), "notifier down") {
				t.Fatalf("hub did not say the hook failed: %q", c.agentText(sid))
			}
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
