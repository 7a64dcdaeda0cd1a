package streamparse

import (
	"bytes"
	"encoding/json"
)

// pi 0.73 repeats the whole partial message in every message_update, so the
// pi decoder walks records with this small scanner: it finds member bounds
// without decoding, and only the few members hub needs go through
// encoding/json. Skipping is a byte loop, several times faster than
// unmarshalling into json.RawMessage (which validates every byte).

// piStructural marks the bytes that matter when skipping a nested value.
var piStructural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

func piSkipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// piStringEnd returns the index just past the string starting at data[i]
// (which must be '"'), or -1.
func piStringEnd(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		bs := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			bs++
		}
		j++
		if bs%2 == 0 {
			return j
		}
	}
}

// piValueEnd returns the index just past the JSON value starting at data[i], or -1.
func piValueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return piStringEnd(data, i)
	case '{', '[':
		return piCompositeEnd(data, i)
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func piCompositeEnd(data []byte, i int) int {
	depth := 0
	for j := i; j < len(data); {
		c := data[j]
		if !piStructural[c] {
			j++
			continue
		}
		switch c {
		case '"':
			j = piStringEnd(data, j)
			if j < 0 {
				return -1
			}
			continue
		case '{', '[':
			depth++
		default:
			depth--
			if depth == 0 {
				return j + 1
			}
		}
		j++
	}
	return -1
}

// piEachMember calls fn with the raw key (quotes stripped, escapes kept) and
// raw value of each member of the object that is exactly data (surrounding
// whitespace allowed). It returns false if data is not such an object.
func piEachMember(data []byte, fn func(key, val []byte)) bool {
	i := piSkipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for first := true; ; first = false {
		i = piSkipWS(data, i)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			return piSkipWS(data, i+1) == len(data)
		}
		if !first {
			if data[i] != ',' {
				return false
			}
			i = piSkipWS(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return false
		}
		end := piStringEnd(data, i)
		if end < 0 {
			return false
		}
		key := data[i+1 : end-1]
		i = piSkipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = piSkipWS(data, i+1)
		vend := piValueEnd(data, i)
		if vend < 0 {
			return false
		}
		fn(key, data[i:vend])
		i = vend
	}
}

// piString decodes a raw JSON string value; non-strings yield "".
func piString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// piRawCopy returns an owned copy of a raw value that is valid JSON: the
// bytes themselves when valid, else the bytes as a JSON string.
func piRawCopy(raw []byte) json.RawMessage {
	if json.Valid(raw) {
		return append(json.RawMessage(nil), raw...)
	}
	q, _ := json.Marshal(string(raw))
	return q
}
