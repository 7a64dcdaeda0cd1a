package acp

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
)

// ask puts an agent's question to the user: as an elicitation form when
// the client renders them, else as a permission-style choice when it is
// one single-choice question; otherwise the agent hears that the editor
// cannot ask, and asks in its reply instead.
func (ss *session) ask(ctx context.Context, q *adapters.QuestionRequest) adapters.Answers {
	ss.srv.mu.Lock()
	elicit := ss.srv.clientCaps.Elicitation.Supports("form")
	ss.srv.mu.Unlock()
	secret := false
	for _, qq := range q.Questions {
		secret = secret || qq.Secret
	}
	switch {
	case elicit && !secret:
		return ss.elicit(ctx, q)
	case len(q.Questions) == 1 && !q.Questions[0].Multi && !secret && len(q.Questions[0].Options) > 0:
		return ss.askByPermission(ctx, q)
	}
	return adapters.Answers{Err: adapters.ErrCannotAsk}
}

// elicit sends elicitation/create with one field per question.
func (ss *session) elicit(ctx context.Context, q *adapters.QuestionRequest) adapters.Answers {
	form := schema.ElicitationSchema{Type: "object", Properties: map[string]schema.ElicitationField{}}
	for _, qq := range q.Questions {
		f := schema.ElicitationField{Type: "string", Title: cmp.Or(qq.Header, qq.Text), Description: qq.Text}
		labels := optionLabels(qq)
		switch {
		case qq.Multi && len(labels) > 0:
			f.Type, f.Items = "array", &schema.ElicitationItems{Type: "string", Enum: labels}
		default:
			f.Enum = labels
		}
		form.Properties[qq.ID] = f
		form.Required = append(form.Required, qq.ID)
	}
	req := schema.CreateElicitationRequest{SessionID: ss.id(), ToolCallID: q.ToolID, Mode: "form",
		Message: questionMessage(q), RequestedSchema: form}
	var resp schema.CreateElicitationResponse
	cancelled, err := ss.callEditor(ctx, "elicitation/create", req, &resp)
	if cancelled {
		return adapters.Answers{Cancelled: true}
	}
	if err != nil {
		ss.srv.log.Warn().Err(err).Msg("elicitation failed; the agent hears the user declined")
		return adapters.Answers{Declined: true}
	}
	switch resp.Action {
	case "accept":
		return adapters.Answers{Values: contentValues(resp.Content)}
	case "cancel":
		return adapters.Answers{Cancelled: true}
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
func (ss *session) askByPermission(ctx context.Context, q *adapters.QuestionRequest) adapters.Answers {
	qq := q.Questions[0]
	var opts []schema.PermissionOption
	for i, l := range optionLabels(qq) {
		opts = append(opts, schema.PermissionOption{OptionID: "answer_" + strconv.Itoa(i), Name: l, Kind: string(adapters.AllowOnce)})
	}
	opts = append(opts, schema.PermissionOption{OptionID: "decline", Name: "Don't answer", Kind: string(adapters.RejectOnce)})
	title := cmp.Or(qq.Text, qq.Header)
	req := schema.RequestPermissionRequest{SessionID: ss.id(), Options: opts,
		ToolCall: schema.ToolCallUpdate{ToolCallID: cmp.Or(q.ToolID, "question"), Title: title, Kind: "other"}}
	var resp schema.RequestPermissionResponse
	cancelled, err := ss.callEditor(ctx, "session/request_permission", req, &resp)
	if cancelled {
		return adapters.Answers{Cancelled: true}
	}
	switch {
	case err != nil:
		ss.srv.log.Warn().Err(err).Msg("question as permission failed; the agent hears the user declined")
		return adapters.Answers{Declined: true}
	case resp.Outcome.Outcome == "cancelled":
		return adapters.Answers{Cancelled: true}
	}
	labels := optionLabels(qq)
	i, err := strconv.Atoi(strings.TrimPrefix(resp.Outcome.OptionID, "answer_"))
	if err != nil || i < 0 || i >= len(labels) {
		return adapters.Answers{Declined: true}
	}
	return adapters.Answers{Values: map[string][]string{qq.ID: {labels[i]}}}
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
