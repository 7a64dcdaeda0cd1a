//go:build unix

package codex

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc/proctest"
	"github.com/hubdev/hub/skills"
)

const testSkillBody = "Always answer in haiku."

// placeTestSkill lays out one skill the way the runner does for a native
// agent and returns the PlaceTemp root.
func placeTestSkill(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "haiku")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: haiku\ndescription: Answers in haiku.\n---\n" + testSkillBody + "\n"
	if err := os.WriteFile(filepath.Join(src, skills.FileName), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := skills.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	root, cleanup, err := skills.PlaceTemp([]skills.Skill{s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cleanup() })
	return root
}

// fakeRequests returns the params of the client requests of method in the
// fake app-server's log, in order.
func fakeRequests(t *testing.T, log, method string) []map[string]any {
	t.Helper()
	data, _ := os.ReadFile(log)
	var out []map[string]any
	for _, l := range strings.Split(string(data), "\n") {
		var m struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

func turnText(params map[string]any) string {
	items, _ := params["input"].([]any)
	var b strings.Builder
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["type"] == "text" {
			b.WriteString(m["text"].(string))
		}
	}
	return b.String()
}

func TestAppServer_SkillDirs(t *testing.T) {
	tests := []struct {
		name         string
		env          []string
		wantInPrompt bool
	}{
		{name: "extra roots set natively", wantInPrompt: false},
		{name: "codex without extraRoots falls back to the prompt", env: []string{"CODEX_FAKE_NO_SKILL_ROOTS=1"}, wantInPrompt: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := placeTestSkill(t)
			f := newFake(t, "appserver-two-turns", tc.env...)
			s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), SkillDirs: []string{root}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			drain(t, mustPrompt(t, s, "first question"), nil)
			drain(t, mustPrompt(t, s, "second question"), nil)

			set := fakeRequests(t, f.log, "skills/extraRoots/set")
			if len(set) != 1 {
				t.Fatalf("skills/extraRoots/set sent %d times, want once", len(set))
			}
			roots, _ := set[0]["extraRoots"].([]any)
			if len(roots) != 1 || roots[0] != filepath.Join(root, ".agents", "skills") {
				t.Errorf("extraRoots = %v, want the temp dir's .agents/skills", roots)
			}
			data, _ := os.ReadFile(f.log)
			if i, j := strings.Index(string(data), "skills/extraRoots/set"), strings.Index(string(data), "thread/start"); i < 0 || j < i {
				t.Errorf("skills/extraRoots/set must precede thread/start:\n%s", data)
			}
			turns := fakeRequests(t, f.log, "turn/start")
			if len(turns) != 2 {
				t.Fatalf("turn/start sent %d times, want 2", len(turns))
			}
			first, second := turnText(turns[0]), turnText(turns[1])
			if got := strings.Contains(first, testSkillBody); got != tc.wantInPrompt {
				t.Errorf("skill body in the first prompt = %v, want %v:\n%s", got, tc.wantInPrompt, first)
			}
			if !strings.HasSuffix(first, "first question") {
				t.Errorf("first prompt lost the user's text:\n%s", first)
			}
			if second != "second question" {
				t.Errorf("second prompt = %q, want the user's text alone", second)
			}
		})
	}
}

func TestExecFallback_SkillsInFirstPrompt(t *testing.T) {
	f := newExecFake(t, "exec-tool", "")
	root := placeTestSkill(t)
	s, err := f.a.Start(context.Background(), adapters.SessionOptions{Cwd: t.TempDir(), SkillDirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	drain(t, mustPrompt(t, s, "run it"), nil)
	drain(t, mustPrompt(t, s, "again"), nil)
	args, _ := os.ReadFile(f.args)
	inv := strings.Split(strings.TrimSpace(string(args)), "\nexec ")
	if len(inv) != 2 {
		t.Fatalf("codex invocations:\n%s", args)
	}
	if !strings.Contains(inv[0], testSkillBody) || !strings.HasSuffix(inv[0], "run it") {
		t.Errorf("first invocation lacks the skill before the prompt:\n%s", inv[0])
	}
	if strings.Contains(inv[1], testSkillBody) {
		t.Errorf("second invocation repeats the skill:\n%s", inv[1])
	}
}

// The skills go with the prompt whose codex exec starts: a prompt whose
// process could not start (its folder is missing) leaves them to the
// retry.
func TestExecFallback_SkillsSurviveAFailedStart(t *testing.T) {
	args := filepath.Join(t.TempDir(), "args")
	stream, _ := filepath.Abs(filepath.Join("testdata", "exec-text", "stream.jsonl"))
	a := New(config.AgentConfig{Command: proctest.Command("args>:"+args, "cat:"+stream),
		Options: map[string]any{"transport": "exec"}}, zerolog.Nop())
	cwd := filepath.Join(t.TempDir(), "later")
	s, err := a.Start(context.Background(), adapters.SessionOptions{Cwd: cwd, SkillDirs: []string{placeTestSkill(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("first"), func(adapters.Event) {}); !errors.Is(err, adapters.ErrBadCwd) {
		t.Fatalf("prompt in a missing folder: %v", err)
	}
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(context.Background(), adapters.TextPrompt("retry"), func(adapters.Event) {}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(args)
	if !strings.Contains(string(got), testSkillBody) || !strings.HasSuffix(strings.TrimSpace(string(got)), "retry") {
		t.Errorf("the retry's codex exec lacks the skills before the prompt:\n%s", got)
	}
}

func TestWithSkills_PrefixesTextOnce(t *testing.T) {
	img := adapters.Content{Type: adapters.ContentImage, Data: "x"}
	tests := []struct {
		name   string
		prompt []adapters.Content
		want   string
	}{
		{name: "text prompt", prompt: adapters.TextPrompt("do it"), want: "SKILL\n\ndo it"},
		{name: "image only", prompt: []adapters.Content{img}, want: "SKILL"},
		{name: "empty text", prompt: adapters.TextPrompt(""), want: "SKILL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]adapters.Content{}, tc.prompt...)
			got := withSkills(tc.prompt, "SKILL")
			if txt := adapters.PromptText(got); txt != tc.want {
				t.Errorf("text = %q, want %q", txt, tc.want)
			}
			if tc.prompt[0] != orig[0] {
				t.Errorf("caller's prompt was modified: %+v", tc.prompt)
			}
		})
	}
}
