package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// ask puts an agent's question to the user: as an elicitation form when
// the client renders them, else as a permission-style choice when it is
// one single-choice question; otherwise the agent hears that the editor
// cannot ask, and asks in its reply instead.
func (e *editorClient) ask(ctx context.Context, q *adapters.QuestionRequest) adapters.Answers {
	secret := slices.ContainsFunc(q.Questions, func(qq adapters.Question) bool { return qq.Secret })
	switch {
	case e.caps.Elicitation.Supports("form") && !secret:
		return e.elicit(ctx, q)
	case len(q.Questions) == 1 && !q.Questions[0].Multi && !secret && len(q.Questions[0].Options) > 0:
		return e.askByPermission(ctx, q)
	}
	return adapters.Answers{Err: adapters.ErrCannotAsk}
}

// call sends the editor a request and decodes its answer into out; cancelled
// when ctx ended meanwhile, whatever the editor answered.
func (e *editorClient) call(ctx context.Context, method string, params, out any) (cancelled bool, err error) {
	if err = e.conn.Call(ctx, method, params, out); ctx.Err() != nil {
		return true, nil
	}
	return false, err
}

// choose asks the user to pick one of options for tool call t
// (session/request_permission) and returns the option selected ("" for
// any other outcome); cancelled when the turn was, or the user dismissed it.
func (e *editorClient) choose(ctx context.Context, t schema.ToolCallUpdate, options []schema.PermissionOption) (id string, cancelled bool, err error) {
	var resp schema.RequestPermissionResponse
	req := schema.RequestPermissionRequest{SessionID: e.sessionID, ToolCall: t, Options: options}
	if cancelled, err = e.call(ctx, "session/request_permission", req, &resp); cancelled || err != nil {
		return "", cancelled, err
	}
	if resp.Outcome.Outcome != "selected" {
		return "", resp.Outcome.Outcome == "cancelled", nil
	}
	return resp.Outcome.OptionID, false, nil
}

// elicit sends elicitation/create with one field per question.
func (e *editorClient) elicit(ctx context.Context, q *adapters.QuestionRequest) adapters.Answers {
	form := schema.ElicitationSchema{Type: "object", Properties: map[string]schema.ElicitationField{}}
	for _, qq := range q.Questions {
		f := schema.ElicitationField{Type: "string", Title: cmp.Or(qq.Header, qq.Text), Description: qq.Text}
		labels := optionLabels(qq)
		if qq.Multi && len(labels) > 0 {
			f.Type, f.Items = "array", &schema.ElicitationItems{Type: "string", Enum: labels}
		} else {
			f.Enum = labels
		}
		form.Properties[qq.ID] = f
		form.Required = append(form.Required, qq.ID)
	}
	req := schema.CreateElicitationRequest{SessionID: e.sessionID, ToolCallID: q.ToolID, Mode: "form",
		Message: questionMessage(q), RequestedSchema: form}
	var resp schema.CreateElicitationResponse
	switch cancelled, err := e.call(ctx, "elicitation/create", req, &resp); {
	case cancelled || err == nil && resp.Action == "cancel":
		return adapters.Answers{Cancelled: true}
	case err != nil:
		e.log.Warn().Err(err).Msg("elicitation failed; the agent hears the user declined")
	case resp.Action == "accept":
		return adapters.Answers{Values: contentValues(resp.Content)}
	}
	return adapters.Answers{Declined: true}
}

// contentValues reads each field's answer: a string or a list of them.
func contentValues(content map[string]json.RawMessage) map[string][]string {
	out := map[string][]string{}
	for id, raw := range content {
		var one string
		var many []string
		switch {
		case json.Unmarshal(raw, &one) == nil:
			out[id] = []string{one}
		case json.Unmarshal(raw, &many) == nil:
			out[id] = many
		default:
			out[id] = []string{strings.Trim(string(raw), `"`)}
		}
	}
	return out
}

// askByPermission shows one single-choice question as a permission request
// whose options are the answers, plus one to decline.
func (e *editorClient) askByPermission(ctx context.Context, q *adapters.QuestionRequest) adapters.Answers {
	qq := q.Questions[0]
	labels := optionLabels(qq)
	var opts []schema.PermissionOption
	for i, l := range labels {
		opts = append(opts, schema.PermissionOption{OptionID: "answer_" + strconv.Itoa(i), Name: l, Kind: string(adapters.AllowOnce)})
	}
	opts = append(opts, schema.PermissionOption{OptionID: "decline", Name: "Don't answer", Kind: string(adapters.RejectOnce)})
	id, cancelled, err := e.choose(ctx, schema.ToolCallUpdate{ToolCallID: cmp.Or(q.ToolID, "question"), Title: cmp.Or(qq.Text, qq.Header), Kind: "other"}, opts)
	switch i, bad := strconv.Atoi(strings.TrimPrefix(id, "answer_")); {
	case cancelled:
		return adapters.Answers{Cancelled: true}
	case err != nil:
		e.log.Warn().Err(err).Msg("question as permission failed; the agent hears the user declined")
	case bad == nil && i >= 0 && i < len(labels):
		return adapters.Answers{Values: map[string][]string{qq.ID: {labels[i]}}}
	}
	return adapters.Answers{Declined: true}
}

func optionLabels(q adapters.Question) []string {
	var out []string
	for _, o := range q.Options {
		out = append(out, o.Label)
	}
	return out
}

func questionMessage(q *adapters.QuestionRequest) string {
	if len(q.Questions) == 1 {
		return q.Questions[0].Text
	}
	return "The agent has " + strconv.Itoa(len(q.Questions)) + " questions for you."
}
