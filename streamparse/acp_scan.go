package streamparse

import (
	"bytes"
	"encoding/json"
)

// Helpers for the scanner fast paths of the acp, gemini and qoder decoders.
// A fast path only accepts input whose meaning it can reproduce exactly;
// anything else (type mismatches, duplicate or case-variant keys that
// encoding/json would fold together) falls back to the encoding/json path,
// so behaviour stays identical.

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
		key := b[i+1 : k-1]
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
	if _, ok := jsonKey(key, keys, vals); !ok {
		return -1
	}
	return jsonSkip(b, vs)
}
