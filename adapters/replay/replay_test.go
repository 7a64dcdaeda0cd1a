package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

func run(t *testing.T, s adapters.Session, text string, onEvent func(adapters.Event)) []adapters.Event {
	t.Helper()
	ch, err := fixture.Prompt(context.Background(), s, adapters.TextPrompt(text))
	if err != nil {
		t.Fatal(err)
	}
	var out []adapters.Event
	for ev := range ch {
		out = append(out, ev)
		if onEvent != nil {
			onEvent(ev)
		}
	}
	return out
}

func start(t *testing.T, script string) adapters.Session {
	t.Helper()
	p := ""
	if script != "" {
		p = filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(p, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(p).Start(context.Background(), adapters.SessionOptions{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReplay_EchoWithoutScript(t *testing.T) {
	t.Setenv(EnvScript, "")
	evs := run(t, start(t, ""), "hello", nil)
	if len(evs) != 2 || evs[0].Text != "hello" || evs[1].StopReason != adapters.StopEndTurn {
		t.Fatalf("%+v", evs)
	}
}

func TestReplay_TurnsAndDone(t *testing.T) {
	s := start(t, `{"event":{"type":"text","text":"a"}}
{"event":{"type":"done","stopReason":"refusal"}}
{"turn":true}
{"event":{"type":"text","text":"b"}}
`)
	if evs := run(t, s, "1", nil); len(evs) != 2 || evs[1].StopReason != adapters.StopRefusal {
		t.Fatalf("turn 1 %+v", evs)
	}
	if evs := run(t, s, "2", nil); evs[0].Text != "b" || evs[1].StopReason != adapters.StopEndTurn {
		t.Fatalf("turn 2 %+v", evs)
	}
}

func TestReplay_PermissionBranches(t *testing.T) {
	script := `{"permission":{"tool":{"id":"t"}},"allowed":[{"event":{"type":"text","text":"yes"}}],"rejected":[{"event":{"type":"text","text":"no"}}]}`
	for kind, want := range map[adapters.PermissionOptionKind]string{adapters.AllowOnce: "yes", adapters.RejectOnce: "no"} {
		evs := run(t, start(t, script), "x", func(ev adapters.Event) {
			if ev.Permission != nil {
				ev.Permission.Respond(adapters.PermissionDecision{Kind: kind})
			}
		})
		if evs[1].Text != want {
			t.Errorf("%s: %+v", kind, evs)
		}
	}
}

func TestReplay_CancelEndsWaitAndSleep(t *testing.T) {
	for _, script := range []string{`{"wait_cancel":true}`, `{"sleep_ms":60000}`} {
		// The text step tells the turn is running; the cancel comes then.
		s := start(t, `{"event":{"type":"text","text":"running"}}`+"\n"+script)
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := fixture.Prompt(ctx, s, adapters.TextPrompt("x"))
		if err != nil {
			t.Fatal(err)
		}
		var evs []adapters.Event
		for ev := range ch {
			evs = append(evs, ev)
			if ev.Type == adapters.EventText {
				cancel()
			}
		}
		cancel()
		if evs[len(evs)-1].StopReason != adapters.StopCancelled {
			t.Errorf("%s: %+v", script, evs)
		}
	}
}

func TestReplay_FailAndBusyAndClosed(t *testing.T) {
	s := start(t, `{"fail":"boom"}`)
	evs := run(t, s, "x", nil)
	if evs[0].Error == nil || !evs[0].Error.Fatal {
		t.Fatalf("%+v", evs)
	}
	// The text step tells the turn is running.
	s = start(t, `{"event":{"type":"text","text":"running"}}`+"\n"+`{"wait_cancel":true}`)
	ch, _ := fixture.Prompt(context.Background(), s, nil)
	if _, err := s.Prompt(context.Background(), nil, func(adapters.Event) {}); err != adapters.ErrBusy {
		t.Fatalf("busy: %v", err)
	}
	_ = s.Close()
	for range ch {
	}
	if _, err := s.Prompt(context.Background(), nil, func(adapters.Event) {}); err != adapters.ErrClosed {
		t.Fatalf("closed: %v", err)
	}
}

func TestReplay_BadScript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.jsonl")
	_ = os.WriteFile(p, []byte("{nope\n"), 0o600)
	if _, err := New(p).Start(context.Background(), adapters.SessionOptions{}); err == nil {
		t.Fatal("bad script accepted")
	}
}
