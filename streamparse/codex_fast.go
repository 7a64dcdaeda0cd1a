package streamparse

import (
	"github.com/hubdev/hub/adapters"
)

// Scanner paths for the frequent app-server records. Each either decodes
// exactly what encoding/json would, or reports handled=false before
// touching decoder state so the encoding/json path decides.

var codexTopKeys = []string{"id", "method", "params", "result", "error"}

// codexMessage splits a line with the scanner; fast is false when the
// encoding/json path must decode it.
func codexMessage(line []byte) (m CodexMessage, fast bool) {
	var v [5][]byte
	if !jsonPick(line, codexTopKeys, v[:]) {
		return m, false
	}
	method, ok := jsonStr(v[1])
	if !ok {
		return m, false
	}
	return CodexMessage{ID: v[0], Method: method, Params: v[2], Result: v[3], Error: v[4]}, true
}

var (
	codexThreadKeys = []string{"id", "model", "name"}
	codexResultKeys = []string{"thread", "model"}
)

// codexFastThread decodes a thread object (null and absent leave t nil).
func codexFastThread(b []byte, t **codexThread) bool {
	if len(b) == 0 || string(b) == "null" {
		return true
	}
	var v [3][]byte
	if !jsonPickValid(b, codexThreadKeys, v[:]) {
		return false
	}
	id, ok1 := jsonStr(v[0])
	model, ok2 := jsonStrPtr(v[1])
	name, ok3 := jsonStrPtr(v[2])
	*t = &codexThread{ID: id, Model: model, Name: name}
	return ok1 && ok2 && ok3
}

func codexFastResponse(result []byte, t **codexThread, model *string) bool {
	var v [2][]byte
	if !jsonIsObj(result) || !jsonPickValid(result, codexResultKeys, v[:]) {
		return false
	}
	var ok bool
	*model, ok = jsonStr(v[1])
	return ok && codexFastThread(v[0], t)
}

var (
	codexDeltaKeys  = []string{"itemId", "delta"}
	codexParamKeys1 = map[string][]string{
		"thread/started": {"thread"}, "item/started": {"item"}, "item/completed": {"item"},
		"thread/tokenUsage/updated": {"tokenUsage"}, "turn/completed": {"turn"},
	}
)

// fastNotification handles the hot notifications with the scanner.
func (d *CodexDecoder) fastNotification(m CodexMessage) (evs []adapters.Event, ok, handled bool) {
	switch m.Method {
	case "item/agentMessage/delta", "item/reasoning/summaryTextDelta", "item/reasoning/textDelta", "item/commandExecution/outputDelta":
		itemID, delta, ok := codexFastDelta(m.Params)
		if !ok {
			return nil, false, false
		}
		switch m.Method {
		case "item/agentMessage/delta":
			return d.deltaEvents(itemID, delta, adapters.EventText), true, true
		case "item/commandExecution/outputDelta":
			return d.outputEvents(itemID, delta), true, true
		}
		return d.deltaEvents(itemID, delta, adapters.EventThought), true, true
	}
	keys := codexParamKeys1[m.Method]
	if keys == nil {
		return nil, false, false
	}
	var v [1][]byte
	if !jsonIsObj(m.Params) || !jsonPickValid(m.Params, keys, v[:]) || !jsonIsObj(v[0]) {
		return nil, false, false
	}
	return d.fastParam(m.Method, v[0])
}

func codexFastDelta(params []byte) (itemID, delta string, ok bool) {
	var v [2][]byte
	if !jsonIsObj(params) || !jsonPickValid(params, codexDeltaKeys, v[:]) {
		return "", "", false
	}
	itemID, ok1 := jsonStr(v[0])
	delta, ok2 := jsonStr(v[1])
	return itemID, delta, ok1 && ok2
}

// fastParam decodes the one object member obj of a hot notification.
func (d *CodexDecoder) fastParam(method string, obj []byte) (evs []adapters.Event, ok, handled bool) {
	switch method {
	case "thread/started":
		var t *codexThread
		if !codexFastThread(obj, &t) {
			return nil, false, false
		}
		if t.ID == "" {
			return nil, false, true
		}
		return []adapters.Event{codexSessionInfo(t, "")}, true, true
	case "item/started", "item/completed":
		it, ok := codexFastItem(obj)
		if !ok {
			return nil, false, false
		}
		evs, ok := d.itemEvents(it, method == "item/completed")
		return evs, ok, true
	case "thread/tokenUsage/updated":
		return d.fastUsage(obj)
	case "turn/completed":
		var v [2][]byte
		if !jsonPickValid(obj, codexTurnKeys, v[:]) || (len(v[1]) > 0 && string(v[1]) != "null") {
			return nil, false, false
		}
		status, ok := jsonStr(v[0])
		if !ok {
			return nil, false, false
		}
		return d.turnEvents(status, nil), true, true
	}
	return nil, false, false
}

var (
	codexTurnKeys   = []string{"status", "error"}
	codexUsageKeys  = []string{"total", "last", "modelContextWindow"}
	codexTokensKeys = []string{"totalTokens", "inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens", "reasoningOutputTokens"}
)

func (d *CodexDecoder) fastUsage(obj []byte) (evs []adapters.Event, ok, handled bool) {
	var v [3][]byte
	if !jsonPickValid(obj, codexUsageKeys, v[:]) {
		return nil, false, false
	}
	total, ok1 := codexFastTokens(v[0])
	last, ok2 := codexFastTokens(v[1])
	var context *int64
	if len(v[2]) > 0 && string(v[2]) != "null" {
		n, ok := jsonInt(v[2])
		if !ok {
			return nil, false, false
		}
		context = &n
	}
	if !ok1 || !ok2 {
		return nil, false, false
	}
	return d.usageEvents(total, last, context), true, true
}

func codexFastTokens(b []byte) (codexTokens, bool) {
	var t codexTokens
	var v [6][]byte
	if !jsonIsObj(b) || !jsonPickValid(b, codexTokensKeys, v[:]) {
		return t, false
	}
	dst := []*int64{&t.TotalTokens, &t.InputTokens, &t.CachedInputTokens, &t.CacheWriteInputTokens, &t.OutputTokens, &t.ReasoningOutputTokens}
	for i, p := range dst {
		n, ok := jsonInt(v[i])
		if !ok {
			return t, false
		}
		*p = n
	}
	return t, true
}

var codexItemKeys = []string{
	"type", "id", "text", "status", "command", "cwd", "server", "tool", "query", "path", // strings
	"aggregatedOutput", "namespace", // *string
	"exitCode", "changes", // *int, bail unless null
	"summary", "content", "commandActions", "arguments", "result", "error", "contentItems", // raw
}

// codexFastItem decodes an item without file changes.
func codexFastItem(obj []byte) (codexItem, bool) {
	var it codexItem
	var v [21][]byte
	if !jsonPickValid(obj, codexItemKeys, v[:]) || (len(v[13]) > 0 && string(v[13]) != "null") {
		return it, false
	}
	strs := [...]*string{&it.Type, &it.ID, &it.Text, &it.Status, &it.Command, &it.Cwd, &it.Server, &it.Tool, &it.Query, &it.Path}
	for i, p := range strs {
		s, ok := jsonStr(v[i])
		if !ok {
			return it, false
		}
		*p = s
	}
	var ok1, ok2, ok3 bool
	it.AggregatedOutput, ok1 = jsonStrPtr(v[10])
	it.Namespace, ok2 = jsonStrPtr(v[11])
	it.ExitCode, ok3 = jsonIntPtr(v[12])
	it.Summary, it.Content, it.CommandActions = v[14], v[15], v[16]
	it.Arguments, it.Result, it.Error, it.ContentItems = v[17], v[18], v[19], v[20]
	return it, ok1 && ok2 && ok3
}

var (
	codexExecKeys     = []string{"type", "thread_id", "message", "item", "usage", "error"}
	codexExecItemKeys = []string{
		"id", "type", "text", "message", "command", "aggregated_output", "status", "server", "tool", "query", // strings
		"exit_code",                                        // *int
		"changes", "arguments", "result", "error", "items", // raw
	}
	codexExecUsageKeys = []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens"}
	codexExecErrorKeys = []string{"message"}
)

// codexExecFast decodes an exec record with the scanner (the item in the
// same pass, into *item, hasItem when it is an object); fast false leaves
// it to encoding/json.
func codexExecFast(line []byte, item *codexExecItem) (r codexExecRecord, hasItem, fast bool) {
	var v [6][]byte
	var iv [16][]byte
	sub := jsonPicker{keys: codexExecItemKeys, vals: iv[:]}
	top := jsonPicker{keys: codexExecKeys, vals: v[:], sub: &sub, subIdx: 3}
	if end := top.scan(line, 0); end < 0 || end != len(line) {
		return r, false, false
	}
	var ok [6]bool
	r.Type, ok[0] = jsonStr(v[0])
	r.ThreadID, ok[1] = jsonStr(v[1])
	r.Message, ok[2] = jsonStr(v[2])
	ok[3] = codexNull(v[3])
	if sub.found {
		ok[3] = codexExecFastItem(&iv, item)
	}
	r.Usage, ok[4] = codexExecFastUsage(v[4])
	r.Error, ok[5] = codexExecFastError(v[5])
	return r, sub.found, ok == [6]bool{true, true, true, true, true, true}
}

func codexNull(b []byte) bool { return len(b) == 0 || string(b) == "null" }

func codexExecFastItem(v *[16][]byte, it *codexExecItem) bool {
	strs := [...]*string{&it.ID, &it.Type, &it.Text, &it.Message, &it.Command, &it.AggregatedOutput, &it.Status, &it.Server, &it.Tool, &it.Query}
	for i, p := range strs {
		s, ok := jsonStr(v[i])
		if !ok {
			return false
		}
		*p = s
	}
	var ok bool
	if it.ExitCode, ok = jsonIntPtr(v[10]); !ok {
		return false
	}
	it.Changes, it.Arguments, it.Result, it.Error, it.Items = v[11], v[12], v[13], v[14], v[15]
	return true
}

func codexExecFastUsage(b []byte) (*codexExecUsage, bool) {
	if codexNull(b) {
		return nil, true
	}
	var v [5][]byte
	if !jsonPickValid(b, codexExecUsageKeys, v[:]) {
		return nil, false
	}
	u := &codexExecUsage{}
	dst := [...]*int64{&u.InputTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens, &u.OutputTokens, &u.ReasoningOutputTokens}
	for i, p := range dst {
		n, ok := jsonInt(v[i])
		if !ok {
			return nil, false
		}
		*p = n
	}
	return u, true
}

func codexExecFastError(b []byte) (*codexExecError, bool) {
	if codexNull(b) {
		return nil, true
	}
	var v [1][]byte
	if !jsonPickValid(b, codexExecErrorKeys, v[:]) {
		return nil, false
	}
	msg, ok := jsonStr(v[0])
	return &codexExecError{Message: msg}, ok
}

var codexPlanItemKeys = []string{"text", "completed"}

// codexExecFastPlan decodes a clean todo_list items array.
func codexExecFastPlan(raw []byte) ([]adapters.PlanEntry, bool) {
	if codexNull(raw) || raw[0] != '[' {
		return nil, false
	}
	plan := []adapters.PlanEntry{}
	ok, end := true, -1
	valid := jsonArray(raw, func(el []byte) bool {
		var v [2][]byte
		if !jsonIsObj(el) || !jsonPickValid(el, codexPlanItemKeys, v[:]) {
			ok = false
			return false
		}
		text, ok1 := jsonStr(v[0])
		st := "pending"
		switch string(v[1]) {
		case "true":
			st = "completed"
		case "", "false", "null":
		default:
			ok1 = false
		}
		ok = ok && ok1
		plan = append(plan, adapters.PlanEntry{Content: text, Priority: "medium", Status: st})
		return ok
	}, &end)
	return plan, ok && valid && end == len(raw)
}

var codexMCPKeys = [][]string{{"content"}, {"type", "text", "data", "mimeType"}}

// codexFastMCPContent decodes a clean MCP result's content list.
func codexFastMCPContent(raw []byte) ([]adapters.ToolContent, bool) {
	var v [1][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, codexMCPKeys[0], v[:]) || codexNull(v[0]) || v[0][0] != '[' {
		return nil, false
	}
	var out []adapters.ToolContent
	ok, end := true, -1
	jsonArray(v[0], func(el []byte) bool {
		var f [4][]byte
		if !jsonIsObj(el) || !jsonPickValid(el, codexMCPKeys[1], f[:]) {
			ok = false
			return false
		}
		var s [4]string
		for i := range f {
			var oki bool
			if s[i], oki = jsonStr(f[i]); !oki {
				ok = false
				return false
			}
		}
		switch s[0] {
		case "text":
			out = append(out, adapters.ToolContent{Type: adapters.ToolContentText, Text: s[1]})
		case "image":
			out = append(out, adapters.ToolContent{Type: adapters.ToolContentImage, Data: s[2], MimeType: s[3]})
		}
		return true
	}, &end)
	return out, ok && end == len(v[0])
}

var codexExecChangeKeys = []string{"path", "kind"}

// codexExecFastChanges decodes a clean file_change changes array.
func codexExecFastChanges(raw []byte) ([]codexChange, bool) {
	if codexNull(raw) {
		return nil, true
	}
	if raw[0] != '[' {
		return nil, false
	}
	var out []codexChange
	ok, end := true, -1
	valid := jsonArray(raw, func(el []byte) bool {
		var v [2][]byte
		if !jsonIsObj(el) || !jsonPickValid(el, codexExecChangeKeys, v[:]) {
			ok = false
			return false
		}
		var c codexChange
		var ok1, ok2 bool
		c.Path, ok1 = jsonStr(v[0])
		c.Kind.Type, ok2 = jsonStr(v[1])
		ok = ok1 && ok2
		out = append(out, c)
		return ok
	}, &end)
	return out, ok && valid && end == len(raw)
}
