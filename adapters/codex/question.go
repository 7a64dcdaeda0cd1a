package codex

import (
	"encoding/json"
	"errors"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/jsonrpc"
)

// methodUserInput is codex's request_user_input tool asking the user.
const methodUserInput = "item/tool/requestUserInput"

// userInput turns codex's request into a question for the turn and
// answers codex with what the user said.
func (s *appSession) userInput(params json.RawMessage) jsonrpc.Job {
	var p struct {
		ItemID    string `json:"itemId"`
		Questions []struct {
			ID       string                    `json:"id"`
			Header   string                    `json:"header"`
			Question string                    `json:"question"`
			IsSecret bool                      `json:"isSecret"`
			Options  []adapters.QuestionOption `json:"options"`
		} `json:"questions"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Questions) == 0 {
		return refuse(jsonrpc.NewError(jsonrpc.CodeInvalidParams, "hub cannot read this request_user_input", nil))
	}
	var qs []adapters.Question
	for _, q := range p.Questions {
		qs = append(qs, adapters.Question{ID: q.ID, Header: q.Header, Text: q.Question, Secret: q.IsSecret, Options: q.Options})
	}
	req := adapters.NewQuestionRequest(p.ItemID, qs)
	s.route([]adapters.Event{{Type: adapters.EventQuestion, Question: req}})
	return answerWhen(s, req.Answer(), userInputResult)
}

func userInputResult(a adapters.Answers) (any, func(), error) {
	switch {
	case a.Cancelled:
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the user cancelled the turn", nil)
	case errors.Is(a.Err, adapters.ErrCannotAsk):
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the user's editor cannot show this question; ask it in your reply as plain text instead", nil)
	case a.Declined || a.Err != nil:
		return map[string]any{"answers": map[string]any{}}, nil, nil
	}
	answers := map[string]any{}
	for id, v := range a.Values {
		answers[id] = map[string]any{"answers": v}
	}
	return map[string]any{"answers": answers}, nil, nil
}
