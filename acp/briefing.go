package acp

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/hubdev/hub/acp/schema"
)

// The handover briefing: what an agent taking over a conversation needs
// from hub's record. The newest turn is kept whole; older turns are cut to
// their request and final answer within a budget; then the files the
// earlier agents changed (with git diff --stat in a repository), the
// current plan, and the MCP servers in use.

const (
	// briefingMax bounds the conversation part of the briefing.
	briefingMax = 12000
	// olderRequest and olderAnswer bound each older turn's request and
	// final answer.
	olderRequest, olderAnswer = 300, 600
	maxFiles                  = 40
	gitStatTimeout            = 2 * time.Second
)

// briefTurn is one turn of the record: the user's request, the agent's
// final answer (its text after the last tool call) and the tools it ran.
type briefTurn struct {
	request, answer string
	tools           []string
}

// briefState is what the briefing is built from, copied under ss.mu.
type briefState struct {
	turns []briefTurn
	files []string
	plan  *schema.Plan
	cwd   string
	mcp   []string
}

// briefing is hub's record of the conversation, for an agent that starts
// without it (or comes back to it: only what it missed); "" when there is
// nothing to tell.
func (ss *session) briefing() string {
	st := ss.briefState()
	conv := renderTurns(st.turns)
	if conv == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("<conversation_so_far>\nYou are taking over this conversation; you do not have its earlier turns, so here is hub's record of them. Continue from it.\n\n")
	b.WriteString("## Conversation\n" + conv + "\n")
	if len(st.files) > 0 {
		b.WriteString("\n## Files changed so far\n- " + strings.Join(st.files, "\n- ") + "\n")
		if stat := gitDiffStat(st.cwd); stat != "" {
			b.WriteString("\n`git diff --stat`:\n" + stat + "\n")
		}
	}
	if st.plan != nil && len(st.plan.Entries) > 0 {
		b.WriteString("\n## Current plan\n")
		for _, e := range st.plan.Entries {
			fmt.Fprintf(&b, "- [%s] %s\n", e.Status, e.Content)
		}
	}
	if len(st.mcp) > 0 {
		b.WriteString("\n## MCP servers in use\n- " + strings.Join(st.mcp, "\n- ") + "\n")
	}
	b.WriteString("</conversation_so_far>\n\n")
	return b.String()
}

// briefState reads the part of the record the agent has not seen, minus
// the prompt being answered.
func (ss *session) briefState() briefState {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.flushChunk()
	hist := ss.rec.History
	if seen := ss.since - ss.dropped; seen > 0 && seen <= len(hist) {
		hist = hist[seen:]
	}
	for len(hist) > 0 && hist[len(hist)-1].UserMessageChunk != nil {
		hist = hist[:len(hist)-1]
	}
	st := briefState{cwd: ss.rec.Cwd}
	seen := map[string]bool{}
	var cur *briefTurn
	lastWasTool := false
	for _, u := range hist {
		switch {
		case u.UserMessageChunk != nil:
			if cur == nil || cur.answer != "" || len(cur.tools) > 0 {
				st.turns = append(st.turns, briefTurn{})
				cur = &st.turns[len(st.turns)-1]
			}
			cur.request += u.UserMessageChunk.Content.Text
		case u.AgentMessageChunk != nil:
			if cur == nil {
				st.turns = append(st.turns, briefTurn{})
				cur = &st.turns[len(st.turns)-1]
			}
			if lastWasTool {
				cur.answer, lastWasTool = "", false
			}
			cur.answer += u.AgentMessageChunk.Content.Text
		case u.ToolCall != nil:
			if cur != nil {
				cur.tools = append(cur.tools, u.ToolCall.Title)
			}
			lastWasTool = true
			st.files = touched(st.files, seen, u.ToolCall.Kind, u.ToolCall.Locations)
		case u.ToolCallUpdate != nil:
			st.files = touched(st.files, seen, u.ToolCallUpdate.Kind, u.ToolCallUpdate.Locations)
		case u.Plan != nil:
			st.plan = u.Plan
		}
	}
	for _, m := range ss.mcp {
		st.mcp = append(st.mcp, m.Name)
	}
	return st
}

// touched adds the paths a changing tool call names.
func touched(files []string, seen map[string]bool, kind string, locs []schema.ToolCallLocation) []string {
	if kind != "edit" && kind != "delete" && kind != "move" {
		return files
	}
	for _, l := range locs {
		if l.Path != "" && !seen[l.Path] && len(files) < maxFiles {
			seen[l.Path] = true
			files = append(files, l.Path)
		}
	}
	return files
}

// renderTurns keeps the newest turn whole and cuts older ones to their
// request and final answer, newest first, until the budget is spent.
func renderTurns(turns []briefTurn) string {
	if len(turns) == 0 {
		return ""
	}
	parts := []string{renderTurn(turns[len(turns)-1], 0, 0)}
	left := briefingMax - len(parts[0])
	omitted := 0
	for i := len(turns) - 2; i >= 0; i-- {
		p := renderTurn(turns[i], olderRequest, olderAnswer)
		if len(p) > left {
			omitted = i + 1
			break
		}
		left -= len(p)
		parts = append(parts, p)
	}
	var b strings.Builder
	if omitted > 0 {
		fmt.Fprintf(&b, "(%d earlier turns left out)\n", omitted)
	}
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	out := strings.TrimSpace(b.String())
	if len(out) > briefingMax { // the newest turn alone is over budget
		out = "…" + out[len(out)-briefingMax:]
	}
	return out
}

func renderTurn(t briefTurn, maxReq, maxAns int) string {
	var b strings.Builder
	if t.request != "" {
		b.WriteString("\nUser: " + cut(t.request, maxReq))
	}
	if len(t.tools) > 0 {
		b.WriteString("\n[tools: " + strings.Join(t.tools, "; ") + "]")
	}
	if t.answer != "" {
		b.WriteString("\nAssistant: " + cut(t.answer, maxAns))
	}
	return b.String()
}

// cut shortens s to n bytes (0: no limit), on a rune boundary.
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// gitDiffStat is `git diff --stat HEAD` in cwd, "" outside a repository
// or when git is missing or slow.
func gitDiffStat(cwd string) string {
	if cwd == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitStatTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", cwd, "diff", "--stat", "HEAD")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}
