package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
)

// A prompt over [acp] max_prompt_mb is refused with one invalid-params
// error naming the key, whether its size shows once decoded (text,
// embedded resources, blocks adding up, steering input) or already in its
// line, which is then skipped unread, also when its params come before
// its method; the session goes on.
func TestPrompt_OverTheLimitRefused(t *testing.T) {
	const limit = 64 << 10
	c := newClient(t, scriptFile(t, `{"event":{"type":"done","stopReason":"end_turn"}}`), func(o *Options) { o.MaxPrompt = limit })
	sid, _ := c.start(t)
	text := func(n int) schema.ContentBlock { return schema.TextBlock(strings.Repeat("a", n)) }
	prompt := func(blocks ...schema.ContentBlock) string {
		b, _ := json.Marshal(schema.PromptRequest{SessionID: sid, Prompt: blocks})
		return string(b)
	}
	line := func(method string, params string) string {
		return `{"jsonrpc":"2.0","id":ID,"method":"` + method + `","params":` + params + `}`
	}
	tests := []struct {
		name, line string
		refused    bool
		idUnread   bool // the line is skipped before its id: answered with id null
	}{
		{"text over", line("session/prompt", prompt(text(limit+1))), true, false},
		{"embedded resource over", line("session/prompt", prompt(schema.ContentBlock{Type: schema.BlockResource, Resource: &schema.ResourceContents{URI: "file:///a", Text: strings.Repeat("a", limit+1)}})), true, false},
		{"blocks adding up", line("session/prompt", prompt(text(limit/2), text(limit/2+1))), true, false},
		{"steering input over", line("_session/steering", prompt(text(limit+1))), true, false},
		{"line far over, escapes", line("session/prompt", prompt(schema.TextBlock(strings.Repeat(`"`+"\n", 1<<20)))), true, false},
		{"line far over, params first", `{"jsonrpc":"2.0","params":` + prompt(text(4<<20)) + `,"id":ID,"method":"session/prompt"}`, true, true},
		{"at the limit", line("session/prompt", prompt(text(limit/2), text(limit/2))), false, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint(1000 + i)
			ch := make(chan wire, 1)
			c.mu.Lock()
			if tc.idUnread {
				c.waits["null"] = ch
			} else {
				c.waits[id] = ch
			}
			c.mu.Unlock()
			c.raw(strings.Replace(tc.line, "ID", id, 1))
			m := c.wait(ch)
			if !tc.refused {
				if m.Error != nil || !strings.Contains(string(m.Result), "end_turn") {
					t.Fatalf("a prompt at the limit answered %s, %v", m.Result, m.Error)
				}
				return
			}
			if e := m.Error; e == nil || e.Code != schema.CodeInvalidParams || !strings.Contains(e.Message, "[acp] max_prompt_mb") {
				t.Fatalf("answered %s, %v; want invalid params naming [acp] max_prompt_mb", m.Result, e)
			}
		})
	}
}

// Only the lines that may carry a prompt are limited below max_message_mb,
// and never below what a prompt at the limit needs once JSON-escaped.
func TestLineLimit_OnlyPromptsAndAboveTheirLimit(t *testing.T) {
	s := newServer(Options{MaxPrompt: 1 << 20})
	tests := []struct {
		method  string
		limited bool
	}{
		{"session/prompt", true},
		{"_session/steering", true},
		{"", true}, // params before the method: it may be a prompt
		{"session/new", false},
		{"session/load", false},
	}
	for _, tc := range tests {
		l, e := s.lineLimit(tc.method)
		switch {
		case !tc.limited && l != 0:
			t.Errorf("%q limited to %d", tc.method, l)
		case tc.limited && (l < 2<<20 || e == nil):
			t.Errorf("%q line limit %d (%v): an escaped prompt at the limit would not fit", tc.method, l, e)
		}
	}
}
