package acpclient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// acpTurnSummary renders the events a user sees of a turn's end: text,
// errors (with code), usage and done.
func acpTurnSummary(evs []adapters.Event) string {
	var s []string
	for _, e := range evs {
		switch e.Type {
		case adapters.EventText:
			s = append(s, "text:"+e.Text)
		case adapters.EventError:
			s = append(s, "error:"+string(e.Error.Code)+":"+e.Error.Message)
		case adapters.EventUsage, adapters.EventDone:
			s = append(s, string(e.Type))
		}
	}
	return strings.Join(s, " | ")
}

func acpChunkLine(text string) string {
	b, _ := json.Marshal(text)
	return acpUp + `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + string(b) + `}}}}`
}

const acpTimeout = "The model service did not respond in time. Please try again."

// errorChunkQuirks holds "[Error] <message>" chunks, the way qodercli's
// quirk does (adapters/qoder), to test the holding the decoder does.
var errorChunkQuirks = Quirks{ErrorChunk: func(text string) string {
	rest, ok := strings.CutPrefix(text, "[Error]")
	if !ok {
		return ""
	}
	return adapters.OneLine(rest)
}}

func TestACPDecoder_ModelErrorShownOnce(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "qoder", "testdata", "acp-error", "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	errLine := `{"jsonrpc":"2.0","id":3,"error":{"code":500,"message":"` + acpTimeout + `"}}`
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		// Recorded from qodercli 1.1.52: "[Error] <message>" chunk, then a
		// JSON-RPC 500 on session/prompt with the same message.
		{"qodercli acp-error recording", strings.Split(string(fixture), "\n"),
			"error:provider:" + acpTimeout + " | done"},
		{"usage between chunk and error", []string{acpChunkLine("[Error] " + acpTimeout),
			acpUp + `{"sessionUpdate":"usage_update","used":5,"size":10}}}`, errLine},
			"usage | error:provider:" + acpTimeout + " | done"},
		{"error with another message keeps the text", []string{acpChunkLine("[Error] quota exceeded"), errLine},
			"text:[Error] quota exceeded | error:provider:" + acpTimeout + " | done"},
		{"prompt result releases the text", []string{acpChunkLine("[Error] " + acpTimeout),
			`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`},
			"text:[Error] " + acpTimeout + " | done"},
		{"next chunk releases the text in order", []string{acpChunkLine("[Error] is what the log says"), acpChunkLine(" at line 3"),
			`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`},
			"text:[Error] is what the log says | text: at line 3 | done"},
		{"of two error chunks only the last is held", []string{acpChunkLine("[Error] first"), acpChunkLine("[Error] first"),
			`{"jsonrpc":"2.0","id":3,"error":{"code":500,"message":"first"}}`},
			"text:[Error] first | error:provider:first | done"},
		{"JSON-RPC internal error stays protocol", []string{
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
			"error:protocol:Internal error | done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := lineDecoder{&ACPDecoder{Quirks: errorChunkQuirks}}
			var evs []adapters.Event
			for _, l := range tt.lines {
				evs = append(evs, d.Decode([]byte(l))...)
			}
			if got := acpTurnSummary(evs); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The ACP client decodes updates with DecodeUpdate and builds the prompt's
// end itself (ACPError for a JSON-RPC error); EndTurn joins the two.
func TestACPDecoder_EndTurnDropsRepeatedErrorText(t *testing.T) {
	chunk := json.RawMessage(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"[Error] ` + acpTimeout + `"}}`)
	done := adapters.Event{Type: adapters.EventDone, StopReason: adapters.StopEndTurn}
	tests := []struct {
		name string
		end  []adapters.Event
		want string
	}{
		{"prompt error repeats it", []adapters.Event{{Type: adapters.EventError, Error: ACPError(500, acpTimeout, nil)}, done},
			"error:provider:" + acpTimeout + " | done"},
		{"prompt answered", []adapters.Event{done}, "text:[Error] " + acpTimeout + " | done"},
		{"agent crashed", []adapters.Event{{Type: adapters.EventError, Error: &adapters.ErrorInfo{Code: adapters.CodeCrash, Message: "qodercli exited"}}, done},
			"text:[Error] " + acpTimeout + " | error:crash:qodercli exited | done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &ACPDecoder{Quirks: errorChunkQuirks}
			evs := d.DecodeUpdate(chunk)
			evs = append(evs, d.EndTurn(tt.end)...)
			if got := acpTurnSummary(evs); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if again := d.EndTurn([]adapters.Event{done}); acpTurnSummary(again) != "done" {
				t.Errorf("held text came out twice: %s", acpTurnSummary(again))
			}
		})
	}
}

func TestACPError_Codes(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{-32000, "auth"},
		{-32603, "protocol"},
		{-32601, "protocol"},
		{400, "provider"},
		{401, "auth"},
		{403, "auth"},
		{429, "rate_limit"},
		{500, "provider"},
		{503, "provider"},
		{600, "protocol"},
		{0, "protocol"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			e := ACPError(tt.code, "m", nil)
			if string(e.Code) != tt.want || !e.Fatal {
				t.Errorf("ACPError(%d) = %+v, want code %s, fatal", tt.code, e, tt.want)
			}
		})
	}
}
