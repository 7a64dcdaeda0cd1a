package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/mockllm"
)

func offeredNames(req mockllm.OpenAIRequest) string {
	var out []string
	for _, tl := range req.Tools {
		if f, ok := tl["function"].(map[string]any); ok {
			out = append(out, f["name"].(string))
		}
	}
	return strings.Join(out, ",")
}

// Plan and read-only modes offer no tool that writes or runs, refuse one
// the model calls anyway, and plan shows the answer's list as the plan.
func TestSession_PlanAndReadOnlyModes(t *testing.T) {
	r := newRig(t, nil,
		mockllm.OpenAITurn{ToolCalls: []mockllm.OpenAIToolCall{{Name: "write_file", Args: `{"path":"x.txt","content":"x"}`}}},
		mockllm.OpenAITurn{Text: "Plan:\n1. read the tests\n2. fix the bug\n- [ ] run them"},
	)
	if err := r.sess.SetMode(context.Background(), "plan"); err != nil {
		t.Fatal(err)
	}
	evs, _ := r.prompt(t, "plan it", nil) // nil: a permission request fails the test
	reqs := r.srv.Requests()
	if got := offeredNames(reqs[0]); got != "read_file,grep,glob" {
		t.Errorf("plan mode offered %s", got)
	}
	if sys := mockllm.MessageText(reqs[0].Messages[0]); !strings.Contains(sys, "plan mode") {
		t.Errorf("the system message does not tell the model its mode: %q", sys)
	}
	var plan []adapters.PlanEntry
	for _, e := range evs {
		if e.Type == adapters.EventPlan {
			plan = e.Plan
		}
	}
	if len(plan) != 3 || plan[0].Content != "read the tests" || plan[2].Content != "run them" || plan[1].Status != "pending" {
		t.Errorf("plan = %+v", plan)
	}
	if res := mockllm.MessageText(reqs[1].Messages[len(reqs[1].Messages)-1]); !strings.Contains(res, "denied") {
		t.Errorf("the write was not refused: %q", res)
	}
	r.srv.Add(mockllm.OpenAITurn{Text: "- not a plan"})
	if err := r.sess.SetMode(context.Background(), "read-only"); err != nil {
		t.Fatal(err)
	}
	evs, _ = r.prompt(t, "look", nil)
	if count(evs, adapters.EventPlan) != 0 {
		t.Error("read-only mode made a plan")
	}
	if err := r.sess.SetMode(context.Background(), "yolo"); !errors.Is(err, adapters.ErrUnsupported) {
		t.Errorf("SetMode(yolo) = %v", err)
	}
	if caps := New(Profile{}, Options{}).Capabilities(); len(caps.Modes) != 3 || caps.DefaultMode != "default" {
		t.Errorf("modes %+v", caps.Modes)
	}
}
