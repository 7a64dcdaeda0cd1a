package codex

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// The surface shows the model the thread runs (codex's own config picks
// it), codex's modes and the efforts of that model from model/list.
func TestAppSession_SurfaceShowsTheThreadsModelModesAndEfforts(t *testing.T) {
	tests := []struct {
		name                string
		access              adapters.Access
		opts                adapters.SessionOptions
		wantMode, wantEffrt string
		wantModes           int
	}{
		{name: "codex's own settings", wantMode: "auto", wantEffrt: "low", wantModes: 3}, // the catalog's default for the model
		{name: "chosen mode and effort", opts: adapters.SessionOptions{Mode: "full-access", Options: map[string]string{"effort": "xhigh"}},
			wantMode: "full-access", wantEffrt: "xhigh", wantModes: 3},
		{name: "ask first allows read-only only", opts: adapters.SessionOptions{Mode: "full-access", Access: adapters.AccessAskFirst},
			wantMode: "read-only", wantEffrt: "low", wantModes: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, "appserver-text", "CODEX_FAKE_MODELS=list", "CODEX_FAKE_THREAD_MODEL=gpt-6.1-sol")
			opts := tc.opts
			opts.Cwd = t.TempDir()
			s, err := f.a.Start(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sur, err := s.(adapters.Surfacer).Surface(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			model, _ := sur.Find("model")
			mode, _ := sur.Find("mode")
			effort, _ := sur.Find("effort")
			switch {
			case model.Value != "gpt-6.1-sol" || !model.Accepts("gpt-6-astra"):
				t.Errorf("model option %+v: want the thread's model among model/list's", model)
			case mode.Value != tc.wantMode || len(mode.Choices) != tc.wantModes:
				t.Errorf("mode option %+v: want %s of %d", mode, tc.wantMode, tc.wantModes)
			case effort.Value != tc.wantEffrt || !effort.Accepts("max"):
				t.Errorf("effort option %+v: want %s among the model's efforts", effort, tc.wantEffrt)
			}
		})
	}
}

// A mode, model or effort chosen between turns reaches codex with the
// next turn/start, as its sandbox and approval policy.
func TestAppSession_ChangesReachTheNextTurn(t *testing.T) {
	f := newFake(t, "appserver-text")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	as := s.(*appSession)
	ctx := context.Background()
	if err := as.SetMode(ctx, "read-only"); err != nil {
		t.Fatal(err)
	}
	if err := as.SetModel(ctx, "gpt-6-sol"); err != nil {
		t.Fatal(err)
	}
	if err := as.SetOption(ctx, "effort", "high"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx, adapters.TextPrompt("x"), func(adapters.Event) {}); err != nil {
		t.Fatal(err)
	}
	logData, _ := os.ReadFile(f.log)
	var turn string
	for _, l := range strings.Split(string(logData), "\n") {
		if strings.Contains(l, `"method":"turn/start"`) {
			turn = l
		}
	}
	for _, want := range []string{`"approvalPolicy":"untrusted"`, `"sandboxPolicy":{"type":"readOnly"}`, `"model":"gpt-6-sol"`, `"effort":"high"`} {
		if !strings.Contains(turn, want) {
			t.Errorf("turn/start %s lacks %s", turn, want)
		}
	}
}

func TestAppSession_AskFirstCannotWidenTheMode(t *testing.T) {
	f := newFake(t, "appserver-text")
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), Access: adapters.AccessAskFirst})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.(*appSession).SetMode(context.Background(), "full-access"); err == nil {
		t.Fatal("a session that must ask first switched codex to full access")
	}
}

// The mode of the agent's configuration (agents.codex.mode) is the
// session's when the front end chooses none, on both transports, as the
// configured model is; a chosen mode and ask-first still win over it.
func TestStart_AppliesTheConfiguredMode(t *testing.T) {
	tests := []struct {
		name, configured, chosen string
		access                   adapters.Access
		sandbox, policy          string
	}{
		{name: "configured", configured: "full-access", sandbox: "danger-full-access", policy: "never"},
		{name: "configured read-only", configured: "read-only", sandbox: "read-only", policy: "untrusted"},
		{name: "chosen wins", configured: "full-access", chosen: "auto", sandbox: "workspace-write", policy: "on-request"},
		{name: "ask first wins", configured: "full-access", access: adapters.AccessAskFirst, sandbox: "read-only", policy: "untrusted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, "appserver-text")
			f.a.cfg.Mode = tt.configured
			opts := adapters.SessionOptions{Cwd: t.TempDir(), Mode: tt.chosen, Access: tt.access}
			s, err := f.a.Start(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			logData, _ := os.ReadFile(f.log)
			for _, want := range []string{`"approvalPolicy":"` + tt.policy + `"`, `"sandbox":"` + tt.sandbox + `"`} {
				if !strings.Contains(string(logData), want) {
					t.Errorf("thread/start lacks %s:\n%s", want, logData)
				}
			}
			f.a.cfg.Options = map[string]any{"transport": "exec"}
			s, err = f.a.Start(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if args := strings.Join(s.(*execSession).args("hi", nil), " "); !strings.Contains(args, `sandbox_mode="`+tt.sandbox+`"`) {
				t.Errorf("codex exec args %q lack sandbox_mode=%q", args, tt.sandbox)
			}
		})
	}
}
