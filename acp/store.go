package acp

import (
	"fmt"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/internal/mask"
)

// Store is hub acp's session index, for the commands that read it outside
// a server (hub sessions).
type Store struct{ x *index }

// OpenStore opens the index under stateDir.
func OpenStore(stateDir string) *Store { return &Store{x: newIndex(stateDir)} }

// Sessions are every recorded session, newest first.
func (s *Store) Sessions() []*Record { return s.x.all() }

// Get returns one session's metadata.
func (s *Store) Get(id string) (*Record, bool) { return s.x.Get(id) }

// History returns one session's whole history.
func (s *Store) History(id string) []schema.SessionUpdate { return s.x.History(id) }

// Delete removes a session's files.
func (s *Store) Delete(id string) error { return s.x.Delete(id) }

// Markdown renders a session as a readable conversation: the user's and
// the agent's messages, thoughts folded away, tool calls as one line each
// with their final status.
func Markdown(rec *Record, hist []schema.SessionUpdate) string {
	var b strings.Builder
	title := rec.Title
	if title == "" {
		title = rec.SessionID
	}
	fmt.Fprintf(&b, "# %s\n\nAgent: %s · cwd: %s · updated %s\n", title, rec.Agent, rec.Cwd, rec.UpdatedAt.Format("2006-01-02 15:04"))
	status := map[string]string{}
	for _, u := range hist {
		if t := u.ToolCallUpdate; t != nil && t.Status != "" {
			status[t.ToolCallID] = t.Status
		}
	}
	last := ""
	for _, u := range hist {
		switch {
		case u.UserMessageChunk != nil:
			if last != "user" {
				b.WriteString("\n## User\n\n")
			}
			b.WriteString(u.UserMessageChunk.Content.Text)
			last = "user"
		case u.AgentMessageChunk != nil:
			if last != "agent" && last != "tool" {
				b.WriteString("\n## " + rec.Agent + "\n\n")
			} else if last == "tool" {
				b.WriteString("\n")
			}
			b.WriteString(u.AgentMessageChunk.Content.Text)
			last = "agent"
		case u.ToolCall != nil:
			if last != "agent" && last != "tool" {
				b.WriteString("\n## " + rec.Agent + "\n\n")
			}
			st := status[u.ToolCall.ToolCallID]
			if st == "" {
				st = u.ToolCall.Status
			}
			fmt.Fprintf(&b, "\n- tool: %s (%s)", u.ToolCall.Title, st)
			last = "tool"
		case u.Plan != nil:
			b.WriteString("\n\nPlan:\n")
			for _, e := range u.Plan.Entries {
				fmt.Fprintf(&b, "- [%s] %s\n", e.Status, e.Content)
			}
		}
	}
	return mask.Default().String(strings.TrimSpace(b.String())) + "\n"
}
