package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
)

// logHook appends each event's stdin as one line to a file.
func logHook(path string) config.HookConfig { return hook(fake("stdin>>:" + path)) }

func readLog(t *testing.T, path string) []Input {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Input
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var in Input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, in)
	}
	return out
}

// A CLI agent's stream runs every event's hooks, in order, with the tool
// call's input and output, and passes every event on unchanged.
func TestObserver_RunsHooksOnEventStream(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	cfg := map[string][]config.HookConfig{}
	for _, ev := range config.HookEvents {
		cfg[ev] = []config.HookConfig{logHook(log)}
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := r.Observe(Input{Cwd: dir, Session: "hub-1"})
	defer o.Close()
	o.Prompt(context.Background(), "claude", adapters.TextPrompt("fix it"))
	var passed []adapters.Event
	emit := o.Wrap(func(ev adapters.Event) { passed = append(passed, ev) })
	stream := []adapters.Event{
		{Type: adapters.EventText, Text: "Writing."},
		{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Name: "Write", Kind: adapters.KindEdit, Status: adapters.StatusPending,
			RawInput: json.RawMessage(`{"file_path":"a.go"}`)}},
		{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: "t1", Status: adapters.StatusInProgress}},
		{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: "t1", Status: adapters.StatusCompleted,
			Content: []adapters.ToolContent{{Type: adapters.ToolContentText, Text: "wrote a.go"}}}},
		{Type: adapters.EventToolUpdate, Tool: &adapters.ToolCall{ID: "t1", Status: adapters.StatusCompleted}},
	}
	for _, ev := range stream {
		emit(ev)
	}
	o.EndTurn(adapters.StopEndTurn)
	if w := o.Flush(context.Background()); len(w) != 0 {
		t.Fatalf("warnings %v", w)
	}
	if len(passed) != len(stream) {
		t.Fatalf("passed %d events of %d", len(passed), len(stream))
	}
	got := readLog(t, log)
	var events []string
	for _, in := range got {
		events = append(events, string(in.Event))
		if in.Cwd != dir || in.Session != "hub-1" {
			t.Errorf("%s: cwd %q session %q", in.Event, in.Cwd, in.Session)
		}
	}
	if strings.Join(events, ",") != "SessionStart,UserPromptSubmit,PreToolUse,PostToolUse,Stop" {
		t.Fatalf("events %v", events)
	}
	pre, post := got[2], got[3]
	switch {
	case got[1].Prompt != "fix it" || got[1].Agent != "claude":
		t.Errorf("prompt %+v", got[1])
	case pre.Tool != "Write" || pre.Kind != "edit" || string(pre.Input) != `{"file_path":"a.go"}`:
		t.Errorf("pre %+v", pre)
	case post.ToolCallID != "t1" || post.Status != "completed" || post.Output != "wrote a.go" || string(post.Input) != `{"file_path":"a.go"}`:
		t.Errorf("post %+v", post)
	case got[4].StopReason != "end_turn":
		t.Errorf("stop %+v", got[4])
	}
}

// Observing cannot block: a PreToolUse hook that denies is reported.
func TestObserver_DenyIsReportedNotEnforced(t *testing.T) {
	r := runner(t, PreToolUse, hook(fake("err:not here\n", "exit:2")))
	o := r.Observe(Input{Cwd: t.TempDir()})
	defer o.Close()
	o.Prompt(context.Background(), "codex", nil)
	n := 0
	o.Wrap(func(adapters.Event) { n++ })(adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "x", Name: "shell"}})
	w := o.Flush(context.Background())
	if n != 1 || len(w) != 1 || !strings.Contains(w[0], "not here") || !strings.Contains(w[0], "observed only") {
		t.Fatalf("passed %d, warnings %v", n, w)
	}
}

func TestObserver_NilPassesEmitThrough(t *testing.T) {
	var o *Observer
	n := 0
	o.Wrap(func(adapters.Event) { n++ })(adapters.Event{Type: adapters.EventText})
	o.Prompt(context.Background(), "x", nil)
	o.EndTurn(adapters.StopEndTurn)
	if n != 1 || o.Flush(context.Background()) != nil {
		t.Fatal("nil observer")
	}
	o.Close()
	// No hooks configured: the stream pays nothing per event.
	emit := o.Wrap(func(adapters.Event) {})
	ev := adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "x"}}
	if allocs := testing.AllocsPerRun(100, func() { emit(ev) }); allocs != 0 {
		t.Fatalf("%v allocations per event", allocs)
	}
}

// hub holds a CLI agent's prompt until its UserPromptSubmit hooks ran, so
// one that blocks keeps it from the agent, with its reason.
func TestObserver_UserPromptSubmitBlocksThePrompt(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		blocked       bool
	}{
		{"exit 2 blocks", fake("err:no secrets in prompts\n", "exit:2"), true},
		{"deny answer blocks", fake(`out:{"decision":"deny","reason":"no secrets in prompts"}`), true},
		{"exit 0 passes", fake("exit:0"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := runner(t, UserPromptSubmit, hook(tc.command)).Observe(Input{Cwd: t.TempDir()})
			defer o.Close()
			out := o.Prompt(context.Background(), "claude", adapters.TextPrompt("my key is sk-123"))
			if (out.Decision == Deny) != tc.blocked || (tc.blocked && out.Reason != "no secrets in prompts") {
				t.Fatalf("outcome %+v", out)
			}
			if tc.blocked && !strings.Contains(Blocked(out).Error(), "no secrets in prompts") {
				t.Fatalf("turn error %q", Blocked(out).Error())
			}
		})
	}
}
