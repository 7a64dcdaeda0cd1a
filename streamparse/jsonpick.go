package streamparse

import (
	"bytes"
	"strconv"
)

// The decoders' fast paths pick members with these and decode only clean
// records this way; anything where encoding/json semantics could differ
// (escaped, non-ASCII or case-folded keys, duplicate members, an unexpected
// type) is left to the encoding/json path, so both agree.

// jsonPick sets vals[i] to the raw value of member keys[i] of the object
// b (nil when absent). It reports false when b is not exactly one valid
// object or when a member needs encoding/json's key matching.
func jsonPick(b []byte, keys []string, vals [][]byte) bool {
	o := jsonPicker{keys: keys, vals: vals}
	end := o.scan(b, jsonWS(b, 0))
	return end >= 0 && jsonWS(b, end) == len(b)
}

// jsonPickValid is jsonPick for b already validated as part of its
// line: it skips values without checking the grammar again.
func jsonPickValid(b []byte, keys []string, vals [][]byte) bool {
	o := jsonPicker{keys: keys, vals: vals, valid: true}
	end := o.scan(b, jsonWS(b, 0))
	return end >= 0 && jsonWS(b, end) == len(b)
}

// jsonPicker picks members of one object. When sub is set and member subIdx
// is an object, sub picks its members in the same pass (sub.found).
type jsonPicker struct {
	keys   []string
	vals   [][]byte
	sub    *jsonPicker
	subIdx int
	found  bool
	valid  bool // b is known to be valid JSON
}

// scan reads the object at b[i] and returns the index past it, or -1.
func (o *jsonPicker) scan(b []byte, i int) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	o.found = true
	i = jsonWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		k := o.skip(b, i)
		if k < 0 {
			return -1
		}
		idx, ok := jsonKey(b[i+1:k-1], o.keys, o.vals)
		if !ok {
			return -1
		}
		i = jsonWS(b, k)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := jsonWS(b, i+1)
		var ve int
		if o.sub != nil && idx == o.subIdx && vs < len(b) && b[vs] == '{' {
			ve = o.sub.scan(b, vs)
		} else {
			ve = o.skip(b, vs)
		}
		if ve < 0 {
			return -1
		}
		if idx >= 0 {
			o.vals[idx] = b[vs:ve]
		}
		i = jsonWS(b, ve)
		if i >= len(b) {
			return -1
		}
		if b[i] == '}' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = jsonWS(b, i+1)
	}
}

// skip returns the index past the value at b[i] (-1 if invalid).
func (o *jsonPicker) skip(b []byte, i int) int {
	if !o.valid {
		return jsonSkip(b, i)
	}
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return jsonValidStringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = jsonValidStringEnd(b, i) - 1; i < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// jsonValidStringEnd returns the index past the valid string literal at b[i].
func jsonValidStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
	}
	return -1
}

// codexInt decodes an integer member like encoding/json into an int64.
func jsonInt(v []byte) (int64, bool) {
	if len(v) == 0 || string(v) == "null" {
		return 0, true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// jsonIntPtr is codexInt for a *int field.
func jsonIntPtr(v []byte) (*int, bool) {
	if len(v) == 0 || string(v) == "null" {
		return nil, true
	}
	n, ok := jsonInt(v)
	i := int(n)
	return &i, ok
}
