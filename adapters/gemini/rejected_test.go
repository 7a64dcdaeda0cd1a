package gemini

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// scriptSession plays events as one turn; after a permission event it
// waits for the decision before going on, as gemini does.
type scriptSession struct {
	script  []adapters.Event
	decided chan adapters.PermissionDecision
}

func (s *scriptSession) ID() string { return "script" }
func (s *scriptSession) Close() error {
	return nil
}

func (s *scriptSession) Prompt(context.Context, []adapters.Content) (<-chan adapters.Event, error) {
	ch := make(chan adapters.Event)
	go func() {
		defer close(ch)
		for _, ev := range s.script {
			if ev.Type == adapters.EventPermission {
				ev.Permission = adapters.NewPermissionRequest(ev.Permission.Tool, ev.Permission.Options)
				ch <- ev
				s.decided <- <-ev.Permission.Decision()
				continue
			}
			ch <- ev
		}
	}()
	return ch, nil
}

type configurableScript struct{ scriptSession }

func (*configurableScript) SetModel(context.Context, string) error { return nil }
func (*configurableScript) SetMode(context.Context, string) error  { return nil }

func perm(id string) adapters.Event {
	return adapters.Event{Type: adapters.EventPermission, Permission: &adapters.PermissionRequest{
		Tool: adapters.ToolCall{ID: id, Title: "touch " + id, Kind: adapters.KindExecute}}}
}

func toolUpdate(id string, st adapters.ToolStatus) adapters.Event {
	return adapters.Event{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: id, Title: "from gemini", Status: st}}
}

var (
	textEv = adapters.Event{Type: adapters.EventText, Text: "ok"}
	doneEv = adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
)

// summary renders events as "permission:t1 tool_update:t1:failed text done".
func summary(evs []adapters.Event) string {
	var parts []string
	for _, ev := range evs {
		s := string(ev.Type)
		switch {
		case ev.Permission != nil:
			s += ":" + ev.Permission.Tool.ID
		case ev.Tool != nil:
			s += ":" + ev.Tool.ID + ":" + string(ev.Tool.Status)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// drain reads a turn, answering every permission with d.
func drain(t *testing.T, ch <-chan adapters.Event, d adapters.PermissionDecision) []adapters.Event {
	t.Helper()
	var evs []adapters.Event
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			if ev.Permission != nil {
				ev.Permission.Respond(d)
			}
			evs = append(evs, ev)
		case <-timeout:
			t.Fatalf("turn did not end; got %s", summary(evs))
		}
	}
}

func TestEndRejectedTools_EndsWhatGeminiLeavesPending(t *testing.T) {
	reject := adapters.PermissionDecision{Kind: adapters.RejectOnce}
	allow := adapters.PermissionDecision{Kind: adapters.AllowOnce}
	tests := []struct {
		name     string
		script   []adapters.Event
		decision adapters.PermissionDecision
		want     string
	}{
		{"rejected, gemini moves on", []adapters.Event{perm("t1"), textEv, doneEv}, reject,
			"permission:t1 tool_update:t1:failed text done"},
		{"rejected, the turn ends", []adapters.Event{perm("t1"), doneEv}, reject,
			"permission:t1 tool_update:t1:failed done"},
		{"cancelled", []adapters.Event{perm("t1"), doneEv}, adapters.PermissionDecision{Cancelled: true},
			"permission:t1 tool_update:t1:failed done"},
		{"rejected, gemini ends it itself", []adapters.Event{perm("t1"), toolUpdate("t1", adapters.StatusFailed), textEv, doneEv}, reject,
			"permission:t1 tool_update:t1:failed text done"},
		{"rejected, gemini reports progress first", []adapters.Event{perm("t1"), toolUpdate("t1", adapters.StatusInProgress), textEv, doneEv}, reject,
			"permission:t1 tool_update:t1:in_progress tool_update:t1:failed text done"},
		{"two rejected in a row", []adapters.Event{perm("t1"), perm("t2"), textEv, doneEv}, reject,
			"permission:t1 tool_update:t1:failed permission:t2 tool_update:t2:failed text done"},
		{"allowed", []adapters.Event{perm("t1"), toolUpdate("t1", adapters.StatusCompleted), textEv, doneEv}, allow,
			"permission:t1 tool_update:t1:completed text done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &scriptSession{script: tt.script, decided: make(chan adapters.PermissionDecision, len(tt.script))}
			ch, err := endRejectedTools(inner).Prompt(context.Background(), adapters.TextPrompt("go"))
			if err != nil {
				t.Fatal(err)
			}
			evs := drain(t, ch, tt.decision)
			if got := summary(evs); got != tt.want {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
			if d := <-inner.decided; d.Kind != tt.decision.Kind || d.Cancelled != tt.decision.Cancelled {
				t.Errorf("gemini got decision %+v, want %+v", d, tt.decision)
			}
			for _, ev := range evs {
				if ev.Type == adapters.EventToolUpdate && ev.Tool.Status == adapters.StatusFailed && ev.Tool.Title == "" {
					t.Errorf("failed update without the tool's title: %+v", ev.Tool)
				}
			}
		})
	}
}

func TestEndRejectedTools_KeepsConfigurable(t *testing.T) {
	if _, ok := endRejectedTools(&configurableScript{}).(adapters.Configurable); !ok {
		t.Error("a configurable session lost SetModel/SetMode")
	}
	if _, ok := endRejectedTools(&scriptSession{}).(adapters.Configurable); ok {
		t.Error("a session without SetModel/SetMode claims them")
	}
}

// The recorded gemini 0.61 rejection (testdata/gemini/acp-reject): gemini
// answers the rejected permission with text only, and the adapter's turn
// must still end the tool call.
func TestNew_RejectedToolCallEndsFailed(t *testing.T) {
	home := t.TempDir()
	env := hermeticEnv(home)
	env[fakeEnv], env[fakeACPEnv] = "1", fixture(t, "acp-reject")
	a := New(config.AgentConfig{Command: config.Command{os.Args[0], "--acp"}, Env: env}, "test", zerolog.Nop())
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := s.Prompt(context.Background(), adapters.TextPrompt("touch a file"))
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, ch, adapters.PermissionDecision{OptionID: "cancel"})
	var tool string
	var failed, after []string
	for _, ev := range evs {
		switch {
		case ev.Type == adapters.EventPermission:
			tool = ev.Permission.Tool.ID
		case ev.Type == adapters.EventToolUpdate && ev.Tool.Status == adapters.StatusFailed:
			failed = append(failed, ev.Tool.ID)
		case ev.Type == adapters.EventText && len(failed) > 0:
			after = append(after, ev.Text)
		}
	}
	if tool == "" || len(failed) != 1 || failed[0] != tool {
		t.Fatalf("failed updates %q for rejected tool %q; events %s", failed, tool, summary(evs))
	}
	if strings.Join(after, "") != "Okay, not running it." {
		t.Errorf("the failed update did not come before gemini went on (text after it %q)", after)
	}
	if last := evs[len(evs)-1]; last.Type != adapters.EventDone || last.StopReason != adapters.StopEndTurn {
		t.Errorf("last event %+v", last)
	}
}
