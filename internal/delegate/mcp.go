// Package delegate is `hub mcp`: a delegation.Host as the MCP tools
// agents, delegate and continue.
package delegate

import (
	"cmp"
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/logging"
)

type DelegateInput struct {
	Agent   string `json:"agent" jsonschema:"the agent to run (see the agents tool), e.g. codex"`
	Prompt  string `json:"prompt" jsonschema:"what the agent should do"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"working directory (default: hub's)"`
	Model   string `json:"model,omitempty" jsonschema:"model id"`
	Mode    string `json:"mode,omitempty" jsonschema:"the agent's mode"`
	Timeout string `json:"timeout,omitempty" jsonschema:"give up after this long, e.g. 5m (default 10m)"`
}

type ContinueInput struct {
	Session string `json:"session" jsonschema:"the session a delegate call returned"`
	Prompt  string `json:"prompt" jsonschema:"the follow-up"`
	Timeout string `json:"timeout,omitempty" jsonschema:"give up after this long, e.g. 5m (default 10m)"`
}

type AgentsOutput struct {
	Agents []delegation.AgentInfo `json:"agents"`
}

// NewServer: the SDK's own records go to log.
func NewServer(d delegation.Host, version string, log zerolog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hub", Title: "hub: every coding agent", Version: version},
		&mcp.ServerOptions{Logger: logging.Slog(log)})
	mcp.AddTool(s, &mcp.Tool{Name: "agents", Description: "The coding agents that can run here, with what each can do; a persona (an agent defined in a file) with when to use it and the agent it runs on."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, AgentsOutput, error) {
			return nil, AgentsOutput{Agents: d.Agents()}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delegate", Description: "Run one turn of another coding agent (claude, codex, gemini, …) on a task, " +
		"through hub. Returns its final answer and a summary: the agent that answered (its fallback when it could not, and why), " +
		"stop reason, tool calls, files changed, usage, and a session to continue."},
		func(ctx context.Context, req *mcp.CallToolRequest, in DelegateInput) (*mcp.CallToolResult, delegation.Result, error) {
			return run(ctx, req, d, delegation.Request{Agent: in.Agent, Prompt: in.Prompt, Cwd: in.Cwd, Model: in.Model, Mode: in.Mode}, in.Timeout)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "continue", Description: "Send a follow-up to a delegate session (from an earlier delegate call)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in ContinueInput) (*mcp.CallToolResult, delegation.Result, error) {
			return run(ctx, req, d, delegation.Request{Session: in.Session, Prompt: in.Prompt}, in.Timeout)
		})
	return s
}

// run returns the answer as text and the summary as structured content;
// a turn that failed is a tool error naming why.
func run(ctx context.Context, req *mcp.CallToolRequest, d delegation.Host, r delegation.Request, timeout string) (*mcp.CallToolResult, delegation.Result, error) {
	var err error
	if r.Timeout, err = time.ParseDuration(cmp.Or(timeout, "0s")); err != nil {
		return nil, delegation.Result{}, err
	}
	res, err := d.Delegate(ctx, r, progress(ctx, req))
	if err != nil {
		return nil, delegation.Result{}, err
	}
	text, summary := res.Text()
	return &mcp.CallToolResult{IsError: res.Error != "", Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: summary}}}, res, nil
}

// progress is nil unless the caller asked for notifications.
func progress(ctx context.Context, req *mcp.CallToolRequest) delegation.Progress {
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	n := 0.0
	return func(msg string) {
		n++
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: msg, Progress: n})
	}
}
