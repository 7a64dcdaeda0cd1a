package acp

import (
	"strings"
	"testing"

	"github.com/hubdev/hub/acp/schema"
)

// A prompt over [acp] max_prompt_mb is refused with one invalid-params
// error naming the key, whether its size shows once decoded (text,
// embedded resources, blocks adding up) or already in its line, which
// is then skipped unread; the session goes on.
func TestPrompt_OverTheLimitRefused(t *testing.T) {
	const limit = 64 << 10
	c := newClient(t, scriptFile(t, `{"event":{"type":"done","stopReason":"end_turn"}}`), func(o *Options) { o.MaxPrompt = limit })
	sid, _ := c.start(t)
	text := func(n int) schema.ContentBlock { return schema.TextBlock(strings.Repeat("a", n)) }
	tests := []struct {
		name    string
		prompt  []schema.ContentBlock
		refused bool
	}{
		{"text over", []schema.ContentBlock{text(limit + 1)}, true},
		{"embedded resource over", []schema.ContentBlock{{Type: schema.BlockResource, Resource: &schema.ResourceContents{URI: "file:///a", Text: strings.Repeat("a", limit+1)}}}, true},
		{"blocks adding up", []schema.ContentBlock{text(limit / 2), text(limit/2 + 1)}, true},
		{"line far over, escapes", []schema.ContentBlock{schema.TextBlock(strings.Repeat(`"`+"\n", 1<<20))}, true},
		{"at the limit", []schema.ContentBlock{text(limit / 2), text(limit / 2)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, e := c.call("session/prompt", schema.PromptRequest{SessionID: sid, Prompt: tc.prompt})
			if !tc.refused {
				if e != nil || !strings.Contains(string(res), "end_turn") {
					t.Fatalf("a prompt at the limit answered %s, %v", res, e)
				}
				return
			}
			if e == nil || e.Code != schema.CodeInvalidParams || !strings.Contains(e.Message, "[acp] max_prompt_mb") {
				t.Fatalf("answered %s, %v; want invalid params naming [acp] max_prompt_mb", res, e)
			}
		})
	}
}

func TestLineLimit_OnlyPromptsAndAboveTheirLimit(t *testing.T) {
	s := newServer(Options{MaxPrompt: 1 << 20})
	if l, _ := s.lineLimit("session/new"); l != 0 {
		t.Fatalf("session/new limited to %d", l)
	}
	if l, e := s.lineLimit("session/prompt"); l < 2<<20 || e == nil {
		t.Fatalf("session/prompt line limit %d (%v): an escaped prompt at the limit would not fit", l, e)
	}
}
