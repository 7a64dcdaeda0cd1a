package gemini

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
)

// scriptSession plays events as one turn; a permission event is asked
// through perm and gemini goes on only after the answer, as it does.
type scriptSession struct {
	script  []adapters.Event
	perm    adapters.PermissionFunc
	decided chan adapters.PermissionDecision
}

func (s *scriptSession) ID() string { return "script" }
func (s *scriptSession) Close() error {
	return nil
}

func (s *scriptSession) Prompt(ctx context.Context, _ []adapters.Content, emit func(adapters.Event)) (adapters.StopReason, error) {
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
	return fixture.Serve(ctx, ch, emit, adapters.TurnRules{Permission: s.perm})
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

// answer returns a permission callback that answers d and notes the
// request in *evs, where the turn's events also go.
func answer(d adapters.PermissionDecision, evs *[]adapters.Event) adapters.PermissionFunc {
	return func(_ context.Context, p *adapters.PermissionRequest) adapters.PermissionDecision {
		*evs = append(*evs, adapters.Event{Type: adapters.EventPermission, Permission: p})
		return d
	}
}

// run plays one turn of s into *evs, ending with a done event.
func run(t *testing.T, s adapters.Session, evs *[]adapters.Event) {
	t.Helper()
	reason, err := s.Prompt(context.Background(), adapters.TextPrompt("go"), func(ev adapters.Event) { *evs = append(*evs, ev) })
	if err != nil {
		t.Fatal(err)
	}
	*evs = append(*evs, adapters.Event{Type: adapters.EventDone, StopReason: reason})
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
			var evs []adapters.Event
			r := &rejecter{}
			inner := &scriptSession{script: tt.script, perm: r.permission(answer(tt.decision, &evs)), decided: make(chan adapters.PermissionDecision, len(tt.script))}
			run(t, r.wrap(inner, nil), &evs)
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
	c, ok := (&rejecter{}).wrap(&configurableScript{}, nil).(adapters.Configurable)
	if !ok || c.SetModel(context.Background(), "m") != nil {
		t.Error("a configurable session lost SetModel/SetMode")
	}
	c = (&rejecter{}).wrap(&scriptSession{}, nil).(adapters.Configurable)
	if err := c.SetModel(context.Background(), "m"); !errors.Is(err, adapters.ErrNeedsRestart) {
		t.Errorf("a session without SetModel answers %v, want ErrNeedsRestart so the front end restarts it", err)
	}
}

// The recorded gemini 0.61 rejection (testdata/gemini/acp-reject): gemini
// answers the rejected permission with text only, and the adapter's turn
// must still end the tool call.
func TestNew_RejectedToolCallEndsFailed(t *testing.T) {
	home := t.TempDir()
	env := hermeticEnv(home)
	env[fakeEnv], env[fakeACPEnv] = "1", recorded(t, "acp-reject")
	a := New(config.AgentConfig{Command: config.Command{os.Args[0], "--acp"}, Env: env}, "test", zerolog.Nop())
	var evs []adapters.Event
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(),
		Permission: answer(adapters.PermissionDecision{OptionID: "cancel"}, &evs)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, &evs)
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
