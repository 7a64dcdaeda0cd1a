package acpclient

import (
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fixture"
)

// The ACP streams recorded from every ACP agent decode to their goldens.
func TestACPFixtures_Golden(t *testing.T) {
	fixture.Golden(t, DecodeACP, *update, "testdata/*")
}

func TestACPDecoder_Updates(t *testing.T) {
	tests := []struct {
		name   string
		update string
		want   adapters.Event
	}{
		{"text", `{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"hi"}}`,
			adapters.Event{Type: adapters.EventText, Text: "hi", MessageID: "m"}},
		{"thought", `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}`,
			adapters.Event{Type: adapters.EventThought, Text: "hmm"}},
		{"plan", `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}`,
			adapters.Event{Type: adapters.EventPlan, Plan: []adapters.PlanEntry{{Content: "a", Priority: "high", Status: "pending"}}}},
		{"commands", `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"x","description":"d","input":{"hint":"h"}}]}`,
			adapters.Event{Type: adapters.EventCommands, Commands: []adapters.Command{{Name: "x", Description: "d", InputHint: "h"}}}},
		{"usage", `{"sessionUpdate":"usage_update","used":5,"size":10}`,
			adapters.Event{Type: adapters.EventUsage, Usage: &adapters.Usage{ContextUsed: 5, ContextSize: 10}}},
		{"tool call defaults", `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls"}`,
			adapters.Event{Type: adapters.EventToolCall, Tool: &adapters.ToolCall{ID: "t1", Title: "ls", Kind: adapters.KindOther, Status: adapters.StatusPending}}},
		{"unknown", `{"sessionUpdate":"zzz"}`,
			adapters.Event{Type: adapters.EventRaw, Source: "acp:zzz", Raw: json.RawMessage(`{"sessionUpdate":"zzz"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewACPDecoder().DecodeUpdate(json.RawMessage(tt.update))
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal([]adapters.Event{tt.want})
			if string(gj) != string(wj) {
				t.Errorf("got %s\nwant %s", gj, wj)
			}
		})
	}
}

func TestACPDecoder_UpdateAfterCallIsUpdate(t *testing.T) {
	d := NewACPDecoder()
	d.DecodeUpdate(json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"x"}`))
	got := d.DecodeUpdate(json.RawMessage(`{"sessionUpdate":"tool_call_update","toolCallId":"t","status":"completed"}`))
	if len(got) != 1 || got[0].Type != adapters.EventToolUpdate || got[0].Tool.Status != adapters.StatusCompleted || got[0].Tool.Kind != "" {
		t.Fatalf("got %+v", got)
	}
}

func TestACPPromptResult_Usage(t *testing.T) {
	tests := []struct {
		name     string
		result   string
		stop     adapters.StopReason
		in, outT int64
	}{
		{"usage field", `{"stopReason":"max_tokens","usage":{"inputTokens":3,"outputTokens":4}}`, adapters.StopMaxTokens, 3, 4},
		{"agent quirk", `{"stopReason":"end_turn","_meta":{"tokens":84}}`, adapters.StopEndTurn, 84, 0},
		{"none", `{"stopReason":"cancelled"}`, adapters.StopCancelled, 0, 0},
		{"garbage", `[]`, adapters.StopEndTurn, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &ACPDecoder{Quirks: Quirks{ResultUsage: func(r json.RawMessage) *adapters.Usage {
				var m struct {
					Meta struct{ Tokens int64 } `json:"_meta"`
				}
				if json.Unmarshal(r, &m) != nil || m.Meta.Tokens == 0 {
					return nil
				}
				return &adapters.Usage{InputTokens: m.Meta.Tokens}
			}}}
			stop, u := d.PromptResult(json.RawMessage(tt.result))
			if stop != tt.stop {
				t.Errorf("stop = %q, want %q", stop, tt.stop)
			}
			var in, out int64
			if u != nil {
				in, out = u.InputTokens, u.OutputTokens
			}
			if in != tt.in || out != tt.outT {
				t.Errorf("usage = %d/%d, want %d/%d", in, out, tt.in, tt.outT)
			}
		})
	}
}

func acpFuzzCheck(t *testing.T, evs []adapters.Event) {
	if _, err := json.Marshal(evs); err != nil {
		t.Fatalf("events not marshalable: %v", err)
	}
}

func FuzzACP(f *testing.F) {
	fixture.Seeds(f, "testdata/*", "../gemini/testdata/acp-*", "../qoder/testdata/acp-*")
	for _, l := range acpAwkwardLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		acpFuzzCheck(t, NewACPDecoder().Decode(line))
		acpDecodesCleanly(t, NewACPDecoder(), line)
	})
}
