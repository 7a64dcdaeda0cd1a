package claude

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

func TestSession_SurfaceComesFromInitializeBeforeAnyPrompt(t *testing.T) {
	cases := []struct {
		name                    string
		opts                    adapters.SessionOptions
		model, mode, effort     string
		wantChoice, wantCommand string
	}{
		{name: "claude's own defaults", model: "default", mode: "default", effort: "default", wantChoice: "fable", wantCommand: "code-review"},
		{name: "the session's choices", opts: adapters.SessionOptions{Model: "sonnet", Mode: "plan", Options: map[string]string{"effort": "high"}},
			model: "sonnet", mode: "plan", effort: "high", wantChoice: "haiku", wantCommand: "debug"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, s := startFake(t, "text", tc.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sur, err := s.Surface(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(sur.Commands, func(c adapters.Command) bool { return c.Name == tc.wantCommand }) {
				t.Errorf("commands %v lack /%s", sur.Commands, tc.wantCommand)
			}
			for id, want := range map[string]string{"model": tc.model, "mode": tc.mode, "effort": tc.effort} {
				o, ok := sur.Find(id)
				if !ok || o.Value != want {
					t.Errorf("option %s = %+v, want current value %q", id, o, want)
				}
			}
			if m, _ := sur.Find("model"); !m.Accepts(tc.wantChoice) {
				t.Errorf("model choices %v lack %s from claude's list", m.Choices, tc.wantChoice)
			}
		})
	}
}

func TestArgs_EffortBecomesTheEffortFlag(t *testing.T) {
	a := New(config.AgentConfig{}, zerolog.Nop())
	args := a.args(adapters.SessionOptions{Options: map[string]string{"effort": "xhigh"}})
	if i := slices.Index(args, "--effort"); i < 0 || args[i+1] != "xhigh" {
		t.Fatalf("args %v lack --effort xhigh", args)
	}
	args = a.args(adapters.SessionOptions{Options: map[string]string{"effort": "default"}})
	if slices.Contains(args, "--effort") {
		t.Fatalf("args %v pass --effort for claude's default", args)
	}
}

func TestArgs_AdditionalDirectoriesBecomeAddDir(t *testing.T) {
	a := New(config.AgentConfig{}, zerolog.Nop())
	args := a.args(adapters.SessionOptions{AddDirs: []string{"/work/lib"}, SkillDirs: []string{"/tmp/skills"}})
	got := strings.Join(args, " ")
	if !strings.Contains(got, "--add-dir /work/lib") || !strings.Contains(got, "--add-dir /tmp/skills") {
		t.Fatalf("args %q lack the session's roots and skills as --add-dir", got)
	}
}
