package acp

import (
	"encoding/json"
	"testing"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
)

func questionStep(t *testing.T, qs ...adapters.Question) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"question": adapters.QuestionRequest{ToolID: "ask_1", Questions: qs}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	langQuestion = adapters.Question{ID: "0", Header: "Language", Text: "Which language?",
		Options: []adapters.QuestionOption{{Label: "Go"}, {Label: "Rust"}}}
	testsQuestion = adapters.Question{ID: "1", Header: "Tests", Text: "Which tests?", Multi: true,
		Options: []adapters.QuestionOption{{Label: "unit"}, {Label: "e2e"}}}
)

// An agent's question reaches the user the best way the client allows,
// and the agent hears the answer, a refusal, or that nobody could be asked.
func TestQuestion_ReachesTheUser(t *testing.T) {
	tests := []struct {
		name      string
		elicit    bool
		questions []adapters.Question
		elicited  map[string]any // the client's elicitation answer
		option    string         // the client's permission choice
		want      string
	}{
		{name: "elicitation form", elicit: true, questions: []adapters.Question{langQuestion, testsQuestion},
			elicited: map[string]any{"action": "accept", "content": map[string]any{"0": "Go", "1": []string{"unit", "e2e"}}},
			want:     `answers: {"0":["Go"],"1":["unit","e2e"]}`},
		{name: "elicitation declined", elicit: true, questions: []adapters.Question{langQuestion},
			elicited: map[string]any{"action": "decline"}, want: "declined"},
		{name: "one choice as a permission", questions: []adapters.Question{langQuestion}, option: "answer_1", want: `answers: {"0":["Rust"]}`},
		{name: "permission-style refusal", questions: []adapters.Question{langQuestion}, option: "decline", want: "declined"},
		{name: "more than a choice and no elicitation", questions: []adapters.Question{langQuestion, testsQuestion}, want: "cannot ask"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, scriptFile(t, questionStep(t, tc.questions...)))
			var elicitReq schema.CreateElicitationRequest
			c.fs = func(method string, params json.RawMessage) (any, *jsonrpc.Error) {
				if method != "elicitation/create" {
					return nil, jsonrpc.NewError(schema.CodeMethodNotFound, "no", nil)
				}
				_ = json.Unmarshal(params, &elicitReq)
				return tc.elicited, nil
			}
			var permReq schema.RequestPermissionRequest
			c.perm = func(p schema.RequestPermissionRequest) (any, *jsonrpc.Error) {
				permReq = p
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": tc.option}}, nil
			}
			caps := schema.ClientCapabilities{}
			if tc.elicit {
				caps.Elicitation = &schema.ElicitationCapabilities{Form: json.RawMessage(`{}`)}
			}
			c.init(caps)
			sid := c.newSession(t.TempDir())
			c.prompt(sid, "go")
			if text := c.agentText(sid); text != tc.want {
				t.Fatalf("the agent heard %q, want %q", text, tc.want)
			}
			if tc.elicit && (elicitReq.ToolCallID != "ask_1" || len(elicitReq.RequestedSchema.Properties) != len(tc.questions)) {
				t.Errorf("elicitation request %+v: want one field per question, tied to the tool call", elicitReq)
			}
			if tc.option != "" && len(permReq.Options) != 3 {
				t.Errorf("permission options %+v: want the two answers and a refusal", permReq.Options)
			}
		})
	}
}
