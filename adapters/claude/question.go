package claude

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/hubdev/hub/adapters"
)

// askTool's can_use_tool request is a question, not a permission: claude takes the
// answers in updatedInput.answers, keyed by question text, labels joined by ", ".
const askTool = "AskUserQuestion"

// questionOf turns an AskUserQuestion request into a question; ok is false for another
// tool or an unknown input shape.
func questionOf(req ClaudeControlRequest) (*adapters.QuestionRequest, bool) {
	var in struct {
		Questions []struct {
			Question    string                    `json:"question"`
			Header      string                    `json:"header"`
			Options     []adapters.QuestionOption `json:"options"`
			MultiSelect bool                      `json:"multiSelect"`
		} `json:"questions"`
	}
	if req.ToolName != askTool || json.Unmarshal(req.Input, &in) != nil || len(in.Questions) == 0 {
		return nil, false
	}
	var qs []adapters.Question
	for i, q := range in.Questions {
		qs = append(qs, adapters.Question{ID: strconv.Itoa(i), Header: q.Header, Text: q.Question, Multi: q.MultiSelect, Options: q.Options})
	}
	return adapters.NewQuestionRequest(req.ToolUseID, qs), true
}

func askResult(req ClaudeControlRequest, q *adapters.QuestionRequest, a adapters.Answers) map[string]any {
	switch {
	case a.Cancelled:
		return map[string]any{"behavior": "deny", "message": "The user cancelled the turn.", "interrupt": true}
	case errors.Is(a.Err, adapters.ErrCannotAsk):
		return map[string]any{"behavior": "deny", "message": "The user's editor cannot show this question. Ask it in your reply as plain text instead, with the options, and wait for the answer."}
	case a.Declined || a.Err != nil:
		return map[string]any{"behavior": "deny", "message": "The user declined to answer. Go on with your best judgement, or ask in plain text."}
	}
	answers := map[string]string{}
	for _, qq := range q.Questions {
		if v := a.Values[qq.ID]; len(v) > 0 {
			answers[qq.Text] = strings.Join(v, ", ")
		}
	}
	var input map[string]any
	_ = json.Unmarshal(req.Input, &input)
	if input == nil {
		input = map[string]any{}
	}
	input["answers"] = answers
	return map[string]any{"behavior": "allow", "updatedInput": input}
}
