package adapters

import (
	"context"
	"errors"
	"sync"
)

// EventQuestion: the agent asks the user something mid-turn (claude's
// AskUserQuestion, codex's request_user_input); the consumer must Respond.
const EventQuestion EventType = "question"

// ErrCannotAsk means the front end has no way to put a question to the user (no
// elicitation, and it does not fit a permission choice); the adapter tells the agent.
var ErrCannotAsk = errors.New("the editor cannot show this question")

// Question is one question; ID keys its answer.
type Question struct {
	ID      string           `json:"id"`
	Header  string           `json:"header,omitempty"`
	Text    string           `json:"text"`
	Options []QuestionOption `json:"options,omitempty"` // none: free text
	Multi   bool             `json:"multi,omitempty"`   // several options may be chosen
	Secret  bool             `json:"secret,omitempty"`  // never asked through a form
}

type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// QuestionRequest is what the agent asks at once, about tool call ToolID.
type QuestionRequest struct {
	ToolID    string     `json:"toolId,omitempty"`
	Questions []Question `json:"questions"`

	once     sync.Once
	answer   chan Answers
	answered chan struct{} // closed by Respond
}

// Answers is the user's reply: Values by question ID, or why there are none.
type Answers struct {
	Values    map[string][]string `json:"values,omitempty"`
	Declined  bool                `json:"declined,omitempty"`  // the user chose not to answer
	Cancelled bool                `json:"cancelled,omitempty"` // the turn was cancelled
	Err       error               `json:"-"`                   // the front end could not ask (ErrCannotAsk)
}

// AskFunc puts a question to the user; see TurnRules.Ask.
type AskFunc func(ctx context.Context, q *QuestionRequest) Answers

func NewQuestionRequest(toolID string, qs []Question) *QuestionRequest {
	return &QuestionRequest{ToolID: toolID, Questions: qs, answer: make(chan Answers, 1), answered: make(chan struct{})}
}

// Respond delivers the answers; only the first call counts.
func (q *QuestionRequest) Respond(a Answers) {
	q.once.Do(func() { q.answer <- a; close(q.answered) })
}

func (q *QuestionRequest) Answer() <-chan Answers { return q.answer }
