// Package handover renders the briefing an agent gets when it takes a
// conversation over from another (an agent switch in hub acp, a fork into
// another agent, hub run --resume with another --agent).
package handover

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Bounds in bytes (Max: of the conversation part), and of files listed.
const (
	Max                       = 12000
	olderRequest, olderAnswer = 300, 600
	maxFiles                  = 40
	gitStatTimeout            = 2 * time.Second
)

type Turn struct {
	Request string   `json:"request,omitempty"`
	Answer  string   `json:"answer,omitempty"`
	Tools   []string `json:"tools,omitempty"`
}

type PlanEntry struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

type Brief struct {
	Turns  []Turn      `json:"turns,omitempty"`
	Files  []string    `json:"files,omitempty"`
	Plan   []PlanEntry `json:"plan,omitempty"`
	MCP    []string    `json:"mcp,omitempty"`
	Skills []string    `json:"skills,omitempty"` // "name: what it does"
	Cwd    string      `json:"cwd,omitempty"`
}

// AddFiles adds paths to a brief's files, each once, up to maxFiles.
func AddFiles(files []string, paths ...string) []string {
	for _, p := range paths {
		if p != "" && len(files) < maxFiles && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	return files
}

// Render is the briefing, "" when there is no conversation to tell.
func Render(br Brief) string {
	conv := renderTurns(br.Turns)
	if conv == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("<conversation_so_far>\nYou are taking over this conversation; you do not have its earlier turns, so here is hub's record of them. Continue from it.\n\n")
	b.WriteString("## Conversation\n" + conv + "\n")
	if len(br.Files) > 0 {
		b.WriteString("\n## Files changed so far\n- " + strings.Join(br.Files, "\n- ") + "\n")
		if stat := gitDiffStat(br.Cwd); stat != "" {
			b.WriteString("\n`git diff --stat`:\n" + stat + "\n")
		}
	}
	if len(br.Plan) > 0 {
		b.WriteString("\n## Current plan\n")
		for _, e := range br.Plan {
			fmt.Fprintf(&b, "- [%s] %s\n", e.Status, e.Content)
		}
	}
	if len(br.MCP) > 0 {
		b.WriteString("\n## MCP servers in use\n- " + strings.Join(br.MCP, "\n- ") + "\n")
	}
	if len(br.Skills) > 0 {
		b.WriteString("\n## Skills in use (the user's /commands)\n- " + strings.Join(br.Skills, "\n- ") + "\n")
	}
	b.WriteString("</conversation_so_far>\n\n")
	return b.String()
}

// renderTurns keeps the newest turn whole and cuts older ones to their
// request and final answer, newest first, until the budget is spent.
func renderTurns(turns []Turn) string {
	if len(turns) == 0 {
		return ""
	}
	last := renderTurn(turns[len(turns)-1], 0, 0)
	out, left := last, Max-len(last)
	for i := len(turns) - 2; i >= 0; i-- {
		p := renderTurn(turns[i], olderRequest, olderAnswer)
		if len(p) > left {
			out = fmt.Sprintf("(%d earlier turns left out)\n", i+1) + out
			break
		}
		out, left = p+out, left-len(p)
	}
	out = strings.TrimSpace(out)
	if len(out) > Max { // the newest turn alone is over budget
		out = "…" + out[len(out)-Max:]
	}
	return out
}

func renderTurn(t Turn, maxReq, maxAns int) string {
	var b strings.Builder
	if t.Request != "" {
		b.WriteString("\nUser: " + cut(t.Request, maxReq))
	}
	if len(t.Tools) > 0 {
		b.WriteString("\n[tools: " + strings.Join(t.Tools, "; ") + "]")
	}
	if t.Answer != "" {
		b.WriteString("\nAssistant: " + cut(t.Answer, maxAns))
	}
	return b.String()
}

// cut shortens s to n bytes (0: no limit), on a rune boundary.
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// gitDiffStat is "" outside a repository or when git is missing or slow.
func gitDiffStat(cwd string) string {
	if cwd == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitStatTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", cwd, "diff", "--stat", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}
