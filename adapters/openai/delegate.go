package openai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"text/template"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/openai/tools"
)

// delegateToolName runs on the same path as hub's MCP delegate tool, with
// the root session's permissions, view and cancel.
const delegateToolName = "delegate_agent"

var delegateTmpl = template.Must(template.ParseFS(promptFS, "prompts/delegate_agent.*"))

type delegateArgs struct {
	Agent          string `json:"agent"`
	Prompt         string `json:"prompt"`
	Session        string `json:"session"`
	Cwd            string `json:"cwd"`
	Model          string `json:"model"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

// delegateDef: agents are the ones it may name.
func delegateDef(agents []string) tools.Definition {
	names := "see `hub agents`"
	if len(agents) > 0 {
		names = strings.Join(agents, ", ")
	}
	agentJSON, _ := json.Marshal("the agent to run: " + names)
	data := struct{ Agents, AgentJSON string }{names, string(agentJSON)}
	var desc, params strings.Builder
	_ = delegateTmpl.ExecuteTemplate(&desc, "delegate_agent.md", data)
	_ = delegateTmpl.ExecuteTemplate(&params, "delegate_agent.json", data)
	return tools.Definition{Name: delegateToolName, Description: strings.TrimSpace(desc.String()), Parameters: json.RawMessage(params.String())}
}

// prepareDelegate: the call is asked like an MCP tool (an "always" answer
// holds for the agent or session the user saw, permission.RequestOf). The
// delegate's own tool calls reach the user through the front end; this
// call shows its result.
func (s *Session) prepareDelegate(args json.RawMessage) (*tools.Prepared, error) {
	var a delegateArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	if a.Prompt == "" || (a.Agent == "" && a.Session == "") {
		return nil, errors.New("delegate_agent needs agent and prompt (or session and prompt)")
	}
	return &tools.Prepared{Title: "delegate to " + strings.TrimSpace(a.Agent+" "+a.Session), Run: func(ctx context.Context, _ func(adapters.ToolCall)) tools.Result {
		text, err := s.delegate(ctx, adapters.DelegateRequest{Agent: a.Agent, Prompt: a.Prompt, Session: a.Session, Cwd: a.Cwd,
			Model: a.Model, Timeout: seconds(a.TimeoutSeconds)})
		if err != nil {
			return tools.Result{Output: "error: " + err.Error(), Content: []adapters.ToolContent{textContent(err.Error())}, Failed: true}
		}
		return tools.Result{Output: text}
	}}, nil
}

// seconds is the model's timeout_seconds as a duration: any int, none below 0, none that overflows.
func seconds(n int) time.Duration {
	return time.Duration(min(max(int64(n), 0), math.MaxInt64/int64(time.Second))) * time.Second
}
