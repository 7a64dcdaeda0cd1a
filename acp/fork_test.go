package acp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

func fork(t *testing.T, c *tclient, sid, cwd, agent string) string {
	t.Helper()
	p := map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}
	if agent != "" {
		p["_meta"] = map[string]any{"hub": map[string]any{"agent": agent}}
	}
	var r schema.ForkSessionResponse
	c.must("session/fork", p, &r)
	if r.SessionID == "" || r.SessionID == sid {
		t.Fatalf("fork answered session %q", r.SessionID)
	}
	return r.SessionID
}

// A session hub cannot read or write in its index is an error for fork and
// load, not a fork or a load with an empty history (nothing lost silently).
func TestFork_IndexUnusableIsAnError(t *testing.T) {
	for _, method := range []string{"session/fork", "session/load"} {
		t.Run(method, func(t *testing.T) {
			c, sid := twoAgents(t, &forgetful{}, &forgetful{})
			c.prompt(sid, "shared start")
			c.must("session/close", schema.SessionIDRequest{SessionID: sid}, nil)
			file := filepath.Join(IndexDir(c.state), sid+".jsonl")
			if err := os.Rename(file, file+".away"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o700); err != nil { // unreadable as a file, even for root, on every OS
				t.Fatal(err)
			}
			_, rerr := c.call(method, map[string]any{"sessionId": sid, "cwd": t.TempDir(), "mcpServers": []any{}})
			if rerr == nil {
				t.Fatalf("%s of a session hub cannot read answered success", method)
			}
		})
	}
}

// userTexts is what a session/load of sid replays as the user's words.
func userTexts(t *testing.T, c *tclient, sid, cwd string) string {
	t.Helper()
	c.must("session/close", schema.SessionIDRequest{SessionID: sid}, nil)
	before := len(c.updates(sid))
	c.must("session/load", schema.LoadSessionRequest{SessionID: sid, Cwd: cwd, McpServers: []schema.McpServer{}}, nil)
	var out []string
	for _, u := range c.updates(sid)[before:] {
		if u.UserMessageChunk != nil {
			out = append(out, u.UserMessageChunk.Content.Text)
		}
	}
	return strings.Join(out, "|")
}

// The fork and the original grow apart without touching each other's
// record; an agent that can fork continues a copy of its own session.
func TestFork_DivergesAndForksTheAgentSession(t *testing.T) {
	a := &forgetful{resume: true, fork: true}
	c, sid := twoAgents(t, a, &forgetful{})
	cwd := t.TempDir()
	c.prompt(sid, "shared start")
	fid := fork(t, c, sid, cwd, "")
	c.prompt(fid, "only in the fork")
	c.prompt(sid, "only in the original")
	a.mu.Lock()
	last := a.opts[len(a.opts)-1]
	prompts := append([]string(nil), a.prompts...)
	a.mu.Unlock()
	if !last.Fork || last.ResumeID != "forgetful-1" {
		t.Errorf("the fork's agent started with %+v, want a fork of forgetful-1", last)
	}
	for _, p := range prompts {
		if strings.Contains(p, "conversation_so_far") {
			t.Errorf("an agent that forks its own session was briefed: %q", p)
		}
	}
	if got := userTexts(t, c, fid, cwd); got != "shared start|only in the fork" {
		t.Errorf("fork history %q", got)
	}
	if got := userTexts(t, c, sid, cwd); got != "shared start|only in the original" {
		t.Errorf("original history %q", got)
	}
}

// A fork of a session whose agent started afresh and was not yet briefed
// (its prompt failed unread) does not fork that agent session, which
// holds none of the conversation: the fork's agent starts briefed.
func TestFork_OfAnUnbriefedAgentSessionBriefsTheFork(t *testing.T) {
	first, second := &forgetful{}, &forgetful{resume: true, fork: true, exited: true}
	c, sid := twoAgents(t, first, second)
	c.prompt(sid, "the bug is in parser.go")
	switchTo(c, sid, "second")
	if _, e := c.call("session/prompt", promptOf(sid, "look")); e == nil {
		t.Fatal("the prompt to the exited agent succeeded")
	}
	fid := fork(t, c, sid, t.TempDir(), "")
	c.prompt(fid, "fix it")
	second.mu.Lock()
	defer second.mu.Unlock()
	last := second.opts[len(second.opts)-1]
	if last.ResumeID != "" || !strings.Contains(second.prompts[len(second.prompts)-1], "the bug is in parser.go") {
		t.Fatalf("the fork's agent started with %+v and prompt %q: want a fresh start briefed on the record", last, second.prompts[len(second.prompts)-1])
	}
}

// A fork of a session whose agent was switched back to and has not yet
// heard what it missed forks that agent's session, and the fork's agent
// hears what it missed.
func TestFork_OfASwitchedBackAgentTellsWhatItMissed(t *testing.T) {
	first := &forgetful{resume: true, fork: true}
	c, sid := twoAgents(t, first, &forgetful{})
	c.prompt(sid, "first question")
	switchTo(c, sid, "second")
	c.prompt(sid, "second question")
	switchTo(c, sid, "forgetful")
	fid := fork(t, c, sid, t.TempDir(), "")
	c.prompt(fid, "third question")
	first.mu.Lock()
	defer first.mu.Unlock()
	forked := slices.ContainsFunc(first.opts, func(o adapters.SessionOptions) bool { return o.Fork && o.ResumeID == "forgetful-1" })
	prompt := first.prompts[len(first.prompts)-1]
	if !forked || !strings.Contains(prompt, "second question") || strings.Contains(prompt, "first question") {
		t.Fatalf("the fork's agent forked its session: %v; its prompt %q: want it told what it missed", forked, prompt)
	}
}

// An agent that cannot fork, or another agent named in _meta.hub.agent,
// starts the fork briefed on the record.
func TestFork_IntoAnAgentThatCannotForkBriefsIt(t *testing.T) {
	first, second := &forgetful{resume: true}, &forgetful{}
	c, sid := twoAgents(t, first, second)
	c.prompt(sid, "the bug is in parser.go")
	for _, agent := range []string{"", "second"} {
		fid := fork(t, c, sid, t.TempDir(), agent)
		c.prompt(fid, "fix it")
	}
	for _, a := range []*forgetful{first, second} {
		_, prompts := a.seen()
		last := prompts[len(prompts)-1]
		if !strings.Contains(last, "the bug is in parser.go") || !strings.HasSuffix(last, "fix it") {
			t.Errorf("the fork's first prompt %q lacks the briefing", last)
		}
	}
}
