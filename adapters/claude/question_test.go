package claude

import (
	"context"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// claude's AskUserQuestion becomes a question; the answers go back keyed
// by question text, and a front end that cannot ask makes claude ask in
// its reply instead of failing silently.
func TestSession_AskUserQuestionRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		ask  adapters.AskFunc
		want string
	}{
		{name: "answered", ask: func(_ context.Context, q *adapters.QuestionRequest) adapters.Answers {
			return adapters.Answers{Values: map[string][]string{q.Questions[0].ID: {"Rust"}}}
		}, want: `answered {"Which language?":"Rust"}`},
		{name: "declined", ask: func(context.Context, *adapters.QuestionRequest) adapters.Answers {
			return adapters.Answers{Declined: true}
		}, want: "denied: The user declined to answer"},
		{name: "nobody to ask", want: "denied: The user's editor cannot show this question"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := startFake(t, "ask", adapters.SessionOptions{Ask: tc.ask})
			var asked *adapters.QuestionRequest
			var out []adapters.Event
			_, err := s.Prompt(context.Background(), adapters.TextPrompt("ask me"), func(ev adapters.Event) { out = append(out, ev) })
			if err != nil {
				t.Fatal(err)
			}
			var result string
			for _, ev := range out {
				if ev.Type == adapters.EventToolUpdate && ev.Tool.ID == "toolu_q" && len(ev.Tool.Content) > 0 {
					result = ev.Tool.Content[0].Text
				}
				if ev.Question != nil {
					asked = ev.Question
				}
			}
			if !strings.HasPrefix(result, tc.want) {
				t.Fatalf("claude got %q, want %q", result, tc.want)
			}
			if asked != nil {
				t.Errorf("the question leaked to the turn's consumer: %+v", asked)
			}
		})
	}
}
