//go:build unix

package pi

import (
	"context"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// pi's surface: the models its keys unlock with the running one, its
// thinking level (settable live) and its commands; no modes.
func TestSession_SurfaceHasModelsThinkingAndCommands(t *testing.T) {
	s, _ := startFake(t, "text", adapters.SessionOptions{})
	ctx := context.Background()
	sur, err := s.Surface(ctx)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := sur.Find("model")
	effort, _ := sur.Find("effort")
	_, hasMode := sur.Find("mode")
	switch {
	case model.Value != "mock/mock-model" || !model.Accepts("mock/other-model"):
		t.Fatalf("model option %+v: want pi's current model among get_available_models", model)
	case effort.Value != "medium" || !effort.Accepts("xhigh"):
		t.Fatalf("thinking option %+v", effort)
	case hasMode:
		t.Fatal("pi offered a mode; it has no permission hook to enforce one")
	case len(sur.Commands) != 1 || sur.Commands[0].Name != "review":
		t.Fatalf("commands %+v", sur.Commands)
	}
	if err := s.SetOption(ctx, "effort", "high"); err != nil {
		t.Fatal(err)
	}
	if sur, _ = s.Surface(ctx); func() string { o, _ := sur.Find("effort"); return o.Value }() != "high" {
		t.Fatal("the thinking level did not change")
	}
}

// A member of an unexpected type in pi's answers costs only that member:
// pi still starts with its session id, and its surface keeps its models
// and commands.
func TestSession_OddMembersKeepStateAndSurface(t *testing.T) {
	s, _ := startFake(t, "odd", adapters.SessionOptions{})
	sur, err := s.Surface(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	model, _ := sur.Find("model")
	if s.ID() != "fake-sess" || model.Value != "mock/mock-model" || len(sur.Commands) != 1 || sur.Commands[0].Name != "review" {
		t.Fatalf("id %q, model %+v, commands %+v: want pi's state and surface", s.ID(), model, sur.Commands)
	}
}

func TestArgs_ThinkingFromTheSession(t *testing.T) {
	a := NewWithOptions(Options{Thinking: "low"})
	args := a.Args(adapters.SessionOptions{Options: map[string]string{"effort": "high"}})
	for i, v := range args {
		if v == "--thinking" && args[i+1] == "high" {
			return
		}
	}
	t.Fatalf("args %v lack the session's --thinking high", args)
}
