package streamparse

import (
	"github.com/hubdev/hub/adapters"
)

// The scanner fast path of ACPDecoder: the frequent messages (session/update
// chunks, tool calls, command lists, responses) are picked apart in one pass
// over the line. It returns ok=false for anything it cannot decode exactly
// like the encoding/json path, which then runs instead.

var acpEnvelopeKeys = []string{"id", "method", "params", "result", "error"}

const (
	acpEnvMethod = iota + 1
	acpEnvParams
	acpEnvResult
	acpEnvError
)

// acpFastUpdate collects a session/update's members during the one pass.
type acpFastUpdate struct {
	v       [acpUpN][]byte
	raw     []byte
	bv      [7][]byte
	blockOK bool
}

func (u *acpFastUpdate) parse(b []byte) int {
	if b[0] != '{' {
		return jsonSkip(b, 0)
	}
	n := acpScanDeep(b, acpUpdateKeys, u.v[:], acpUpContent, u.content)
	if n >= 0 {
		u.raw = b[:n]
	}
	return n
}

func (u *acpFastUpdate) content(b []byte) int {
	if b[0] != '{' {
		return jsonSkip(b, 0)
	}
	n := acpScanDeep(b, acpBlockKeys, u.bv[:], -1, nil)
	u.blockOK = n >= 0
	return n
}

func (d *ACPDecoder) decodeFast(line []byte) ([]adapters.Event, bool) {
	var v [5][]byte
	var u acpFastUpdate
	params := func(p []byte) int {
		if p[0] != '{' || string(v[acpEnvMethod]) != `"session/update"` {
			return jsonSkip(p, 0)
		}
		var pv [1][]byte
		return acpScanDeep(p, []string{"update"}, pv[:], 0, u.parse)
	}
	end := acpScanDeep(line, acpEnvelopeKeys, v[:], acpEnvParams, params)
	if end < 0 || jsonWS(line, end) != len(line) || v[acpEnvError] != nil {
		return nil, false
	}
	method, ok := jsonStr(v[acpEnvMethod])
	switch {
	case !ok:
		return nil, false
	case method == "session/request_permission":
		return d.permissionFast(v[acpEnvParams])
	case method == "session/update":
		if u.raw == nil {
			return nil, false
		}
		return d.updateFast(&u)
	case method != "":
		return []adapters.Event{jsonRawEvent("acp:"+method, line)}, true
	}
	return d.resultFast(v[acpEnvResult], line)
}

func (d *ACPDecoder) resultFast(result, line []byte) ([]adapters.Event, bool) {
	var v [4][]byte
	if !jsonIsObj(result) || !jsonPick(result, acpResultKeys, v[:]) {
		return nil, false
	}
	stop, ok1 := jsonStr(v[0])
	sid, ok2 := jsonStr(v[1])
	switch {
	case !ok1 || !ok2:
		return nil, false
	case stop != "":
		return acpPromptResultFast(stop, v[2], v[3])
	case sid != "":
		return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{AgentSessionID: sid}}}, true
	}
	return []adapters.Event{jsonRawEvent("acp:response", line)}, true
}

// acpUpdateKeys lists acpUpdate's members, then acpToolCall's extra ones.
var acpUpdateKeys = []string{
	"sessionUpdate", "content", "messageId", "toolCallId", "entries", "availableCommands",
	"used", "size", "cost", "title",
	"name", "kind", "status", "locations", "rawInput", "rawOutput", "_meta",
}

const (
	acpUpKind = iota
	acpUpContent
	acpUpMessageID
	acpUpToolCallID
	acpUpEntries
	acpUpCommands
	acpUpUsed
	acpUpSize
	acpUpCost
	acpUpTitle
	acpUpName
	acpUpToolKind
	acpUpStatus
	acpUpLocations
	acpUpRawInput
	acpUpRawOutput
	acpUpMeta
	acpUpN
)

func (d *ACPDecoder) updateFast(u *acpFastUpdate) ([]adapters.Event, bool) {
	au, cmds, ok := acpUpdateFast(&u.v)
	if !ok {
		return nil, false
	}
	update := u.raw
	switch au.SessionUpdate {
	case "agent_message_chunk", "agent_thought_chunk":
		if !u.blockOK {
			return nil, false
		}
		c, ok := acpBlockVals(&u.bv)
		if !ok {
			return nil, false
		}
		return d.chunk(au, c, update), true
	case "tool_call", "tool_call_update":
		tc, ok := acpToolCallFast(&u.v)
		if !ok {
			return nil, false
		}
		return d.toolCall(au.SessionUpdate, tc, update), true
	case "plan":
		return []adapters.Event{{Type: adapters.EventPlan, Plan: au.Entries}}, true
	case "available_commands_update":
		if cmds == nil {
			cmds = []adapters.Command{}
		}
		return []adapters.Event{{Type: adapters.EventCommands, Commands: cmds}}, true
	case "usage_update":
		return []adapters.Event{{Type: adapters.EventUsage, Usage: acpUsage(au)}}, true
	case "session_info_update":
		if au.Title != nil {
			return []adapters.Event{{Type: adapters.EventSessionInfo, Session: &adapters.SessionInfo{Title: *au.Title}}}, true
		}
	}
	return []adapters.Event{jsonRawEvent("acp:"+au.SessionUpdate, update)}, true
}

var acpBlockKeys = []string{"type", "text", "data", "mimeType", "uri", "name", "resource"}

// acpBlockFast decodes a ContentBlock object.
func acpBlockFast(b []byte) (acpContentBlock, bool) {
	var v [7][]byte
	if !jsonPick(b, acpBlockKeys, v[:]) {
		return acpContentBlock{}, false
	}
	return acpBlockVals(&v)
}

// acpBlockVals decodes a ContentBlock from its scanned members.
func acpBlockVals(v *[7][]byte) (acpContentBlock, bool) {
	var c acpContentBlock
	dst := []*string{&c.Type, &c.Text, &c.Data, &c.MimeType, &c.URI, &c.Name}
	for i, p := range dst {
		s, ok := jsonStr(v[i])
		if !ok {
			return c, false
		}
		*p = s
	}
	if r := v[6]; r != nil && string(r) != "null" {
		var rv [2][]byte
		if !jsonIsObj(r) || !jsonPick(r, []string{"uri", "text"}, rv[:]) {
			return c, false
		}
		uri, ok1 := jsonStr(rv[0])
		text, ok2 := jsonStr(rv[1])
		if !ok1 || !ok2 {
			return c, false
		}
		c.Resource = &struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		}{uri, text}
	}
	return c, true
}

func acpToolCallFast(v *[acpUpN][]byte) (acpToolCall, bool) {
	var tc acpToolCall
	ok := true
	for _, f := range []struct {
		dst *string
		src []byte
	}{{&tc.ToolCallID, v[acpUpToolCallID]}, {&tc.Name, v[acpUpName]}, {&tc.Kind, v[acpUpToolKind]}, {&tc.Status, v[acpUpStatus]}} {
		s, good := jsonStr(f.src)
		*f.dst, ok = s, ok && good
	}
	tc.Title, _ = jsonStrPtr(v[acpUpTitle])
	if !ok || !acpToolContentsFast(v[acpUpContent], &tc.Content) || !acpMetaFast(v[acpUpMeta], &tc.Meta) {
		return tc, false
	}
	if tc.Locations, ok = acpLocationsFast(v[acpUpLocations]); !ok {
		return tc, false
	}
	tc.RawInput = acpRawClone(v[acpUpRawInput])
	tc.RawOutput = acpRawClone(v[acpUpRawOutput])
	return tc, true
}

var acpToolContentKeys = []string{"type", "content", "path", "oldText", "newText", "terminalId"}

func acpToolContentsFast(b []byte, out *[]acpToolContent) bool {
	if b == nil || string(b) == "null" {
		return true
	}
	if b[0] != '[' {
		return false
	}
	good := true
	end := -1
	jsonArray(b, func(item []byte) bool {
		var v [6][]byte
		if !jsonIsObj(item) || !jsonPick(item, acpToolContentKeys, v[:]) {
			good = false
			return false
		}
		var c acpToolContent
		var ok [5]bool
		c.Type, ok[0] = jsonStr(v[0])
		c.Path, ok[1] = jsonStr(v[2])
		c.OldText, ok[2] = jsonStrPtr(v[3])
		c.NewText, ok[3] = jsonStr(v[4])
		c.TerminalID, ok[4] = jsonStr(v[5])
		good = ok[0] && ok[1] && ok[2] && ok[3] && ok[4]
		if cb := v[1]; good && cb != nil && string(cb) != "null" {
			var blk acpContentBlock
			blk, good = acpBlockFast(cb)
			good = good && jsonIsObj(cb)
			c.Content = &blk
		}
		*out = append(*out, c)
		return good
	}, &end)
	return good
}

// acpMetaFast decodes _meta like map[string]acpMetaNS, keeping document
// order in a one-entry-per-namespace map.
func acpMetaFast(b []byte, out *map[string]acpMetaNS) bool {
	if b == nil || string(b) == "null" {
		return true
	}
	if !jsonIsObj(b) {
		return false
	}
	end := -1
	good := true
	jsonObject(b, func(k, val []byte) bool {
		if *out == nil {
			*out = map[string]acpMetaNS{}
		}
		ns := acpMetaNSFast(val)
		name, ok := jsonString(k)
		if !ok {
			good = false
			return false
		}
		if _, dup := (*out)[name]; dup {
			good = false // encoding/json would let the last one win
			return false
		}
		(*out)[name] = ns
		return true
	}, &end)
	return good
}

var acpCommandKeys = []string{"name", "description", "input"}

// acpCommandsFast decodes availableCommands straight into hub's commands:
// like acpCommands over the encoding/json result, but without the
// intermediate slice.
func acpCommandsFast(b []byte) ([]adapters.Command, bool) {
	if b == nil || string(b) == "null" {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	var out []adapters.Command
	good := true
	end := -1
	jsonArray(b, func(item []byte) bool {
		var v [3][]byte
		if good = jsonIsObj(item) && jsonPick(item, acpCommandKeys, v[:]); !good {
			return false
		}
		var c adapters.Command
		var ok1, ok2 bool
		c.Name, ok1 = jsonStr(v[0])
		c.Description, ok2 = jsonStr(v[1])
		good = ok1 && ok2
		if in := v[2]; good && in != nil && string(in) != "null" {
			var hv [1][]byte
			good = jsonIsObj(in) && jsonPick(in, []string{"hint"}, hv[:])
			var ok3 bool
			c.InputHint, ok3 = jsonStr(hv[0])
			good = good && ok3
		}
		out = append(out, c)
		return good
	}, &end)
	return out, good
}

var acpToolNameKey = []string{"toolName"}

// acpMetaNSFast decodes like acpMetaNS.UnmarshalJSON: only an object with a
// string toolName names the tool.
func acpMetaNSFast(val []byte) acpMetaNS {
	if !jsonIsObj(val) {
		return acpMetaNS{}
	}
	var v [1][]byte
	if !jsonPick(val, acpToolNameKey, v[:]) {
		var ns acpMetaNS
		_ = ns.UnmarshalJSON(val)
		return ns
	}
	name, _ := jsonStr(v[0])
	return acpMetaNS{ToolName: name}
}
