package streamparse

import (
	"encoding/json"
	"strconv"
)

// Scanner paths for the frequent small records (stream_event deltas,
// assistant and user messages, system lines). Each either fills exactly
// what encoding/json would, or reports false before touching decoder state
// so encoding/json decides (odd keys, duplicates, unexpected types, and the
// rarer members such as usage or rate_limit_info).

var claudeTopKeys = []string{
	"type", "subtype", "session_id", "model", "claude_code_version", "api_message_id", "result",
	"terminal_reason", "request_id", "parent_tool_use_id", "stop_reason", "is_api_error_message", "is_error",
	"event", "message", "tool_use_result", "error", "request", "slash_commands",
	"usage", "modelUsage", "total_cost_usd",
	"errors", "api_error_status", "attempt", "max_retries", "retry_delay_ms", "error_status",
	// members left to encoding/json when present and not null
	"rate_limit_info",
}

const claudeTopRare = 28 // index of the first member left to encoding/json

// claudeFastLine fills l from a small line with the scanner.
func claudeFastLine(line []byte, l *claudeLine, c *claudeStrs) bool {
	var v [29][]byte
	if !jsonPick(line, claudeTopKeys, v[:]) {
		return false
	}
	for _, r := range v[claudeTopRare:] {
		if len(r) > 0 && string(r) != "null" {
			return false
		}
	}
	strs := [...]*string{&l.Type, &l.Subtype, &l.SessionID, &l.Model, &l.Version, &l.APIMessageID, &l.Result,
		&l.TerminalReason, &l.RequestID}
	for i, p := range strs {
		s, ok := c.str(v[i])
		if !ok {
			return false
		}
		*p = s
	}
	var ok1, ok2, ok3, ok4 bool
	l.ParentToolUseID, ok1 = c.ptr(v[9])
	l.StopReason, ok2 = jsonStrPtr(v[10])
	l.IsAPIError, ok3 = claudeBool(v[11])
	l.IsError, ok4 = claudeBool(v[12])
	l.Event, l.Message, l.ToolUseResult, l.Error, l.Request = v[13], v[14], v[15], v[16], v[17]
	return ok1 && ok2 && ok3 && ok4 && claudeStrings(v[18], &l.SlashCommands) &&
		claudeFastUsage(v[19], &l.Usage) && claudeFastModelUsage(v[20], l) && claudeFastCost(v[21], &l.TotalCostUSD) &&
		claudeStrings(v[22], &l.Errors) && claudeFastRetry(&v, l)
}

// claudeFastRetry fills the api_retry and api error status members.
func claudeFastRetry(v *[29][]byte, l *claudeLine) bool {
	var ok [5]bool
	l.APIErrorStatus, ok[0] = jsonIntPtr(v[23])
	attempt, ok1 := jsonInt(v[24])
	retries, ok2 := jsonInt(v[25])
	l.Attempt, ok[1], l.MaxRetries, ok[2] = int(attempt), ok1, int(retries), ok2
	l.ErrorStatus, ok[4] = jsonIntPtr(v[27])
	ok[3] = true
	if r := v[26]; len(r) > 0 && string(r) != "null" {
		f, err := strconv.ParseFloat(string(r), 64)
		l.RetryDelayMS, ok[3] = f, err == nil
	}
	return ok == [5]bool{true, true, true, true, true}
}

var (
	claudeUsageKeys  = []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens_details"}
	claudeThinkKeys  = []string{"thinking_tokens"}
	claudeWindowKeys = []string{"contextWindow"}
)

func claudeFastUsage(raw []byte, out **claudeUsage) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var v [5][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeUsageKeys, v[:]) {
		return false
	}
	u := &claudeUsage{}
	*out = u
	for i, p := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheCreationTokens} {
		n, ok := jsonInt(v[i])
		if !ok {
			return false
		}
		*p = n
	}
	if len(v[4]) == 0 || string(v[4]) == "null" {
		return true
	}
	var t [1][]byte
	if !jsonIsObj(v[4]) || !jsonPickValid(v[4], claudeThinkKeys, t[:]) {
		return false
	}
	n, ok := jsonInt(t[0])
	u.OutputDetails = &struct {
		ThinkingTokens int64 `json:"thinking_tokens"`
	}{n}
	return ok
}

func claudeFastModelUsage(raw []byte, l *claudeLine) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	if !jsonIsObj(raw) {
		return false
	}
	m := map[string]struct {
		ContextWindow int64 `json:"contextWindow"`
	}{}
	ok := true
	end := -1
	jsonObject(raw, func(k, val []byte) bool {
		key, good := jsonStr(k)
		var w [1][]byte
		if !good || val[0] != '{' || !jsonPickValid(val, claudeWindowKeys, w[:]) {
			ok = false
			return false
		}
		n, good := jsonInt(w[0])
		e := m[key]
		e.ContextWindow = n
		m[key], ok = e, good
		return good
	}, &end)
	l.ModelUsage = m
	return ok
}

func claudeFastCost(raw []byte, out **float64) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	*out = &f
	return err == nil
}

// claudeBool decodes a bool member as encoding/json would.
func claudeBool(v []byte) (bool, bool) {
	switch string(v) {
	case "", "null", "false":
		return false, true
	case "true":
		return true, true
	}
	return false, false
}

// claudeStrings decodes a []string member (absent and null leave it nil).
func claudeStrings(v []byte, out *[]string) bool {
	if len(v) == 0 || string(v) == "null" {
		return true
	}
	if v[0] != '[' {
		return false
	}
	ss := []string{}
	ok := true
	end := -1
	jsonArray(v, func(e []byte) bool {
		s, good := jsonStr(e)
		ss, ok = append(ss, s), good
		return good
	}, &end)
	*out = ss
	return ok
}

var (
	claudeEventKeys = []string{"type", "index", "content_block", "delta", "message"}
	claudeCBKeys    = []string{"type", "id", "name"}
	claudeDeltaKeys = []string{"type", "text", "thinking", "partial_json"}
	claudeIDKeys    = []string{"id"}
)

// claudeFastEvent decodes a stream_event's event object.
func claudeFastEvent(raw []byte, ev *claudeStreamEvent, c *claudeStrs) bool {
	var v [5][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeEventKeys, v[:]) {
		return false
	}
	var ok bool
	if ev.Type, ok = c.str(v[0]); !ok {
		return false
	}
	if len(v[1]) > 0 && string(v[1]) != "null" {
		n, err := strconv.ParseInt(string(v[1]), 10, 0)
		if err != nil {
			return false
		}
		ev.Index = int(n)
	}
	return claudeFastCB(v[2], ev, c) && claudeFastDelta(v[3], ev, c) && claudeFastMsgID(v[4], ev, c)
}

func claudeFastCB(raw []byte, ev *claudeStreamEvent, c *claudeStrs) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var v [3][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeCBKeys, v[:]) {
		return false
	}
	cb := &struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
	}{}
	var ok1, ok2, ok3 bool
	cb.Type, ok1 = c.str(v[0])
	cb.ID, ok2 = c.str(v[1])
	cb.Name, ok3 = c.str(v[2])
	ev.ContentBlock = cb
	return ok1 && ok2 && ok3
}

func claudeFastDelta(raw []byte, ev *claudeStreamEvent, c *claudeStrs) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var v [4][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeDeltaKeys, v[:]) {
		return false
	}
	d := &struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	}{}
	var ok1, ok2, ok3, ok4 bool
	d.Type, ok1 = c.str(v[0])
	d.Text, ok2 = jsonStr(v[1])
	d.Thinking, ok3 = jsonStr(v[2])
	d.PartialJSON, ok4 = jsonStr(v[3])
	ev.Delta = d
	return ok1 && ok2 && ok3 && ok4
}

func claudeFastMsgID(raw []byte, ev *claudeStreamEvent, c *claudeStrs) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var v [1][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeIDKeys, v[:]) {
		return false
	}
	id, ok := c.str(v[0])
	ev.Message = &struct {
		ID string `json:"id"`
	}{ID: id}
	return ok
}

var (
	claudeMsgKeys   = []string{"id", "content"}
	claudeBlockKeys = []string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error", "source"}
)

// claudeFastMessage is decodeClaudeMessage for a small message object.
func claudeFastMessage(raw []byte, c *claudeStrs) (m claudeMessage, blocks []claudeBlockJSON, ok bool) {
	var v [2][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeMsgKeys, v[:]) {
		return m, nil, false
	}
	if m.ID, ok = c.str(v[0]); !ok {
		return m, nil, false
	}
	m.Content = json.RawMessage(v[1])
	cont := v[1]
	switch {
	case len(cont) == 0 || string(cont) == "null":
		return m, nil, true
	case cont[0] == '"':
		s, ok := jsonStr(cont)
		return m, []claudeBlockJSON{{Type: "text", Text: s}}, ok
	case cont[0] != '[':
		return m, nil, false
	}
	ok = true
	end := -1
	jsonArray(cont, func(e []byte) bool {
		var b claudeBlockJSON
		b, ok = claudeFastBlock(e, c)
		blocks = append(blocks, b)
		return ok
	}, &end)
	return m, blocks, ok
}

func claudeFastBlock(raw []byte, c *claudeStrs) (b claudeBlockJSON, ok bool) {
	if string(raw) == "null" {
		return b, true
	}
	var v [10][]byte
	if !jsonIsObj(raw) || !jsonPickValid(raw, claudeBlockKeys, v[:]) {
		return b, false
	}
	if len(v[9]) > 0 && string(v[9]) != "null" {
		return b, false // image source: rare, left to encoding/json
	}
	strs := [...]*string{&b.Type, &b.Text, &b.Thinking, &b.ID, &b.Name}
	for i, p := range strs {
		if *p, ok = c.str(v[i]); !ok {
			return b, false
		}
	}
	if b.ToolUseID, ok = c.str(v[6]); !ok {
		return b, false
	}
	b.Input, b.Content = json.RawMessage(v[5]), json.RawMessage(v[7])
	b.IsError, ok = claudeBool(v[8])
	return b, ok
}

// claudeStrs remembers recent short strings of one stream (session, model,
// message and tool ids repeat on many lines) so decoding them again does
// not allocate. A nil *claudeStrs just decodes.
type claudeStrs [16]string

func (c *claudeStrs) str(v []byte) (string, bool) {
	n := len(v) - 2
	if c == nil || n < 1 || n > 64 || v[0] != '"' {
		return jsonStr(v)
	}
	inner := v[1 : n+1]
	slot := &c[(n^int(inner[n-1])*7^int(inner[n/2])*13)&15]
	if *slot == string(inner) {
		return *slot, true
	}
	s, ok := jsonStr(v)
	if ok && s == string(inner) {
		*slot = s // raw equals decoded, so the same raw decodes to s again
	}
	return s, ok
}

// ptr is jsonStrPtr through the cache.
func (c *claudeStrs) ptr(v []byte) (*string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return nil, true
	}
	s, ok := c.str(v)
	return &s, ok
}
