package openai

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/fixture"
	"github.com/hubdev/hub/internal/hooks"
	"github.com/hubdev/hub/internal/mockllm"
	"github.com/hubdev/hub/internal/proc/proctest"
)

func withHooks(t *testing.T, cfg map[string][]config.HookConfig) func(*Profile, *Options) {
	t.Helper()
	h, err := hooks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return func(_ *Profile, o *Options) { o.Hooks = h }
}

// fake is a hook command doing proctest ops, run by sh or cmd.exe alike.
func fake(ops ...string) string { return proctest.ShellCommand(ops...) }

func writeTurn(path string) mockllm.OpenAITurn {
	return mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"` + path + `","content":"x"}`}}}
}

// lastMessage is the last message of the i-th request: after a tool call,
// the tool result the model read.
func lastMessage(r *testRig, i int) string {
	m := r.srv.Requests()[i].Messages
	return mockllm.MessageText(m[len(m)-1])
}

// A PreToolUse hook gates each call after the hard deny list and before
// asking: it blocks (exit 2, a JSON deny, a failure, a timeout) with a
// reason the model reads, allows without asking, or leaves it to the user.
func TestSession_PreToolUseHookGatesWrite(t *testing.T) {
	cases := []struct {
		name    string
		hook    config.HookConfig
		asks    int
		written bool
		model   string // what the model reads back
	}{
		{"exit 2 denies with stderr", config.HookConfig{Command: fake("err:writes are frozen today\n", "exit:2"), Matcher: "write"},
			0, false, "Blocked by a PreToolUse hook: writes are frozen today"},
		{"JSON deny denies", config.HookConfig{Command: fake(`out:{"decision":"deny","reason":"not in src/"}`)},
			0, false, "Blocked by a PreToolUse hook: not in src/"},
		{"hanging hook times out and denies", config.HookConfig{Command: fake("hang"), Timeout: config.Duration{Duration: 200 * time.Millisecond, Set: true}},
			0, false, "timed out after 200ms"},
		{"failing hook denies", config.HookConfig{Command: fake("exit:7")}, 0, false, "failed with exit code 7"},
		{"exit 0 leaves it to the user", config.HookConfig{Command: fake("exit:0")}, 1, true, "wrote 1 bytes"},
		{"JSON ask leaves it to the user", config.HookConfig{Command: fake(`out:{"decision":"ask"}`)}, 1, true, "wrote 1 bytes"},
		{"JSON allow skips asking", config.HookConfig{Command: fake(`out:{"decision":"allow"}`)}, 0, true, "wrote 1 bytes"},
		{"a matcher that misses leaves it to the user", config.HookConfig{Command: fake("exit:2"), Matcher: "^bash$"}, 1, true, "wrote 1 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, withHooks(t, map[string][]config.HookConfig{"PreToolUse": {c.hook}}), writeTurn("a.txt"), mockllm.OpenAITurn{Text: "done"})
			asks := 0
			evs, stop := r.prompt(t, "write it", func(*adapters.PermissionRequest) string { asks++; return "allow_once" })
			_, err := os.Stat(filepath.Join(r.root, "a.txt"))
			if stop != adapters.StopEndTurn || asks != c.asks || (err == nil) != c.written {
				t.Fatalf("stop=%s asks=%d written=%v", stop, asks, err == nil)
			}
			if got := lastMessage(r, 1); !strings.Contains(got, c.model) {
				t.Fatalf("the model read %q, want %q", got, c.model)
			}
			if !c.written && count(evs, adapters.EventToolUpdate) == 0 {
				t.Fatal("the blocked call was not marked failed")
			}
		})
	}
}

// A hook that fails is reported to the user, not only to the model.
func TestSession_FailedHookWarnsUser(t *testing.T) {
	r := newRig(t, withHooks(t, map[string][]config.HookConfig{"PreToolUse": {{Command: fake("exit:9")}}}), writeTurn("a.txt"), mockllm.OpenAITurn{Text: "done"})
	evs, _ := r.prompt(t, "write it", nil)
	e := firstError(evs)
	if e == nil || e.Code != adapters.CodeHook || e.Fatal || !strings.Contains(e.Message, "hooks.PreToolUse[0]") {
		t.Fatalf("warning %+v", e)
	}
}

// No hook lifts the hard deny list: the hook is not even asked.
func TestSession_HookAllowCannotLiftHardDeny(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	r := newRig(t, withHooks(t, map[string][]config.HookConfig{"PreToolUse": {{Command: fake("touch:"+ran, `out:{"decision":"allow"}`)}}}),
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"rm -rf /"}`}}}, mockllm.OpenAITurn{Text: "ok"})
	r.prompt(t, "x", nil)
	if got := lastMessage(r, 1); !strings.Contains(got, "Permission denied (hard deny") {
		t.Fatalf("the model read %q", got)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the hook ran for a hard-denied call")
	}
}

// A UserPromptSubmit hook that exits 2 keeps the prompt from the model.
func TestSession_PromptHookBlocks(t *testing.T) {
	r := newRig(t, withHooks(t, map[string][]config.HookConfig{"UserPromptSubmit": {{Command: fake("exitifstdin:password:2:no secrets")}}}),
		mockllm.OpenAITurn{Text: "fine"})
	evs, stop := r.prompt(t, "my password is hunter2", nil)
	e := firstError(evs)
	if stop != adapters.StopEndTurn || len(r.srv.Requests()) != 0 || e == nil || e.Code != adapters.CodeHook || !strings.Contains(e.Message, "no secrets") {
		t.Fatalf("stop=%s requests=%d error %+v", stop, len(r.srv.Requests()), e)
	}
	if _, stop := r.prompt(t, "hello", nil); stop != adapters.StopEndTurn || len(r.srv.Requests()) != 1 {
		t.Fatalf("a clean prompt: stop=%s requests=%d", stop, len(r.srv.Requests()))
	}
	if strings.Contains(string(r.srv.Requests()[0].Body), "hunter2") {
		t.Fatal("the blocked prompt reached the model")
	}
}

// Input steered into a running turn passes the UserPromptSubmit hooks as
// a prompt does: one that blocks keeps it from the model, and Steer says
// why; clean input joins the turn.
func TestSession_PromptHookBlocksSteeredInput(t *testing.T) {
	r := newRig(t, withHooks(t, map[string][]config.HookConfig{"UserPromptSubmit": {{Command: fake("exitifstdin:password:2:no secrets")}}}),
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "bash", Args: `{"command":"echo hi"}`}}},
		mockllm.OpenAITurn{Text: "done"})
	var blocked, clean error
	r.prompt(t, "run it", func(*adapters.PermissionRequest) string {
		blocked = r.sess.Steer(context.Background(), adapters.TextPrompt("my password is hunter2"))
		clean = r.sess.Steer(context.Background(), adapters.TextPrompt("also use -n"))
		return "allow_once"
	})
	if blocked == nil || !strings.Contains(blocked.Error(), "no secrets") || clean != nil {
		t.Fatalf("steering: blocked %v, clean %v", blocked, clean)
	}
	body := string(r.srv.Requests()[1].Body)
	if strings.Contains(body, "hunter2") || !strings.Contains(body, "also use -n") {
		t.Fatalf("the second request: %s", body)
	}
}

// Input for a turn that no longer takes any runs no hook: hub acp sends it
// as a prompt of its own, whose hooks then run once, not twice.
func TestSession_SteerWithoutATurnRunsNoHook(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	r := newRig(t, withHooks(t, map[string][]config.HookConfig{"UserPromptSubmit": {{Command: fake("stdin>>:" + log)}}}),
		mockllm.OpenAITurn{Text: "done"})
	r.prompt(t, "first", nil)
	err := r.sess.Steer(context.Background(), adapters.TextPrompt("late"))
	if !errors.Is(err, adapters.ErrNoTurn) || errors.Is(err, adapters.ErrNoTurnJudged) { // judged, its prompt would skip them
		t.Fatalf("Steer after the turn: %v, want ErrNoTurn, not judged", err)
	}
	if b, _ := os.ReadFile(log); strings.Contains(string(b), "late") {
		t.Fatalf("the hook ran for input no turn took: %s", b)
	}
}

// Steered input the hooks passed before its turn ended comes back as a
// prompt that keeps their verdict (adapters.Judged): they do not run on
// it a second time; an unmarked prompt runs them.
func TestSession_JudgedPromptRunsNoPromptHook(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	r := newRig(t, withHooks(t, map[string][]config.HookConfig{"UserPromptSubmit": {{Command: fake("stdin>>:" + log)}}}),
		mockllm.OpenAITurn{Text: "done"}, mockllm.OpenAITurn{Text: "done"})
	ch, err := fixture.Prompt(adapters.Judged(context.Background()), r.sess, adapters.TextPrompt("steered"))
	if err != nil {
		t.Fatal(err)
	}
	drain(t, ch)
	r.prompt(t, "typed", nil)
	if b, _ := os.ReadFile(log); strings.Contains(string(b), "steered") || !strings.Contains(string(b), "typed") {
		t.Fatalf("the prompt hooks saw %s; want only the unjudged prompt", b)
	}
}

// Every event's hooks run, in turn order, with the session's facts.
func TestSession_HooksSeeEveryEvent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	h := config.HookConfig{Command: fake("stdin>>:" + log)}
	cfg := map[string][]config.HookConfig{}
	for _, ev := range config.HookEvents {
		cfg[ev] = []config.HookConfig{h}
	}
	r := newRig(t, withHooks(t, cfg), writeTurn("a.txt"), mockllm.OpenAITurn{Text: "done"})
	r.prompt(t, "write it", allowOnce)
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []hooks.Input
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var in hooks.Input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		got = append(got, in)
	}
	var names []string
	for _, in := range got {
		names = append(names, string(in.Event))
		if in.Session != r.sess.ID() || in.Cwd != r.sess.cwd || in.Agent != "test" {
			t.Errorf("%s: %+v", in.Event, in)
		}
	}
	if strings.Join(names, ",") != "SessionStart,UserPromptSubmit,PreToolUse,PostToolUse,Stop" {
		t.Fatalf("events %v", names)
	}
	pre, post := got[2], got[3]
	if pre.Tool != "write_file" || pre.Kind != "edit" || !strings.Contains(string(pre.Input), `"a.txt"`) || got[1].Prompt != "write it" ||
		post.Status != "completed" || !strings.Contains(post.Output, "wrote 1 bytes") || got[4].StopReason != "end_turn" {
		t.Fatalf("inputs %+v", got)
	}
}
