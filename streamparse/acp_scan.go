package streamparse

import (
	"bytes"
	"encoding/json"

	"github.com/hubdev/hub/adapters"
)

// Helpers for the scanner fast paths of the acp, gemini and qoder decoders.
// A fast path only accepts input whose meaning it can reproduce exactly;
// anything else (type mismatches, duplicate or case-variant keys that
// encoding/json would fold together) falls back to the encoding/json path,
// so behaviour stays identical.

// acpScan is jsonFields made strict: vals must start nil, and it fails when
// a wanted key repeats or when another key could match a wanted one under
// encoding/json's case-insensitive, escape-decoding key matching.
func acpScan(b []byte, keys []string, vals [][]byte) bool {
	end := -1
	clean := true
	ok := jsonObject(b, func(k, v []byte) bool {
		for i, want := range keys {
			if string(k) == want {
				if vals[i] != nil {
					clean = false
					return false
				}
				vals[i] = v
				return true
			}
		}
		if !acpPlainKey(k) {
			clean = false
			return false
		}
		for _, want := range keys {
			if acpFoldEq(k, want) {
				clean = false
				return false
			}
		}
		return true
	}, &end)
	return ok && clean && jsonWS(b, end) == len(b)
}

// acpPlainKey reports whether a raw key is ASCII without escapes.
func acpPlainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func acpFoldEq(k []byte, want string) bool {
	if len(k) != len(want) {
		return false
	}
	for i := range k {
		a, b := k[i], want[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// acpStr reads an optional string member: absent and null give "".
func acpStr(v []byte) (string, bool) {
	if v == nil || string(v) == "null" {
		return "", true
	}
	if len(v) <= acpConstMax {
		if s, ok := acpConsts[string(v)]; ok {
			return s, true
		}
	}
	return jsonString(v)
}

// acpConsts maps the quoted form of frequent enum values (record types,
// kinds, statuses) to shared strings, saving an allocation per member.
var acpConsts = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call", "tool_call_update",
		"plan", "usage_update", "available_commands_update", "session_info_update", "current_mode_update",
		"text", "image", "resource_link", "resource", "content", "diff", "terminal",
		"pending", "in_progress", "completed", "failed", "high", "medium", "low",
		"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other",
		"allow_once", "allow_always", "reject_once", "reject_always", "USD",
		"init", "message", "tool_use", "tool_result", "error", "result", "user", "assistant",
		"success", "fatal", "warning",
	} {
		m[`"`+s+`"`] = s
	}
	return m
}()

const acpConstMax = len(`"available_commands_update"`)

// acpStrPtr reads an optional *string member: absent and null give nil.
func acpStrPtr(v []byte) (*string, bool) {
	if v == nil || string(v) == "null" {
		return nil, true
	}
	s, ok := jsonString(v)
	return &s, ok
}

// acpIsObj reports whether v is an object (the scanner already validated it).
func acpIsObj(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// acpAbsent reports whether every value is absent.
func acpAbsent(vs ...[]byte) bool {
	for _, v := range vs {
		if v != nil {
			return false
		}
	}
	return true
}

// acpRawClone copies a scanner sub-slice so events never alias the caller's
// line buffer; absent and null give nil.
func acpRawClone(v []byte) json.RawMessage {
	if v == nil || string(v) == "null" {
		return nil
	}
	return bytes.Clone(v)
}

// acpRawValid is acpRaw for a record the scanner already validated.
func acpRawValid(source string, rec []byte) adapters.Event {
	return adapters.Event{Type: adapters.EventRaw, Source: source, Raw: bytes.Clone(rec)}
}

// acpScanDeep is acpScan where the value of keys[deep] is consumed by
// parse (given the rest of the input from the value's first byte, it returns
// the value's length or -1) instead of being skipped, so a nested object is
// scanned once. It returns the index past the object, or -1.
func acpScanDeep(b []byte, keys []string, vals [][]byte, deep int, parse func(rest []byte) int) int {
	i := jsonWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i = jsonWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i = jsonWS(b, i); i >= len(b) || b[i] != '"' {
			return -1
		}
		k := jsonSkipString(b, i)
		if k < 0 {
			return -1
		}
		key := b[i:k]
		if i = jsonWS(b, k); i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := jsonWS(b, i+1)
		if vs >= len(b) {
			return -1
		}
		ve := acpMember(b, vs, key, keys, vals, deep, parse)
		if ve < 0 {
			return -1
		}
		if i = jsonWS(b, ve); i >= len(b) {
			return -1
		}
		if b[i] == '}' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i++
	}
}

// acpMember consumes one member value at b[vs] and records it.
func acpMember(b []byte, vs int, key []byte, keys []string, vals [][]byte, deep int, parse func([]byte) int) int {
	for j, want := range keys {
		if string(key) != want {
			continue
		}
		if vals[j] != nil {
			return -1
		}
		var ve int
		if j == deep {
			if n := parse(b[vs:]); n >= 0 {
				ve = vs + n
			} else {
				ve = -1
			}
		} else {
			ve = jsonSkip(b, vs)
		}
		if ve >= 0 {
			vals[j] = b[vs:ve]
		}
		return ve
	}
	if !acpPlainKey(key) {
		return -1
	}
	for _, want := range keys {
		if acpFoldEq(key, want) {
			return -1
		}
	}
	return jsonSkip(b, vs)
}
