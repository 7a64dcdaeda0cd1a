// Package mask hides secrets in what hub writes for people and files: the
// values of secret-named environment variables and well-known token
// shapes become "[masked]" (a token keeps its prefix, "ghp_[masked]").
// The writers apply it (hub run's output, transcripts, session files,
// exports); nothing else needs to.
//
// Secret variables are those whose name contains KEY, TOKEN, SECRET,
// PASSWORD or PASSWD (any case) with a value of at least 8 characters.
// Token shapes: OpenAI and Anthropic keys (sk-, sk-proj-, sk-ant-, with a
// digit in 20+ characters), GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_,
// github_pat_), AWS access key ids (AKIA/ASIA + 16), Slack tokens
// (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-), GitLab tokens (glpat-), Google
// API keys (AIza + 35) and JWTs (eyJ….eyJ….…).
package mask

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Masked replaces a secret.
const Masked = "[masked]"

// minValue is the shortest environment value masked: shorter ones (KEY=1,
// DEBUG_TOKEN=on) would mask common words everywhere.
const minValue = 8

// Masker hides one set of secrets. A nil *Masker masks nothing.
type Masker struct {
	values *strings.Replacer // the secret variables' values
}

// Default is the masker for this process's environment, built on first
// use.
var Default = sync.OnceValue(func() *Masker { return New(os.Environ()) })

// New returns a masker for the secret variables of environ (NAME=value
// entries) and the token shapes.
func New(environ []string) *Masker {
	var vals []string
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if ok && len(v) >= minValue && secretName(name) {
			vals = append(vals, v)
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range slices.Compact(vals) {
		pairs = append(pairs, v, Masked)
	}
	return &Masker{values: strings.NewReplacer(pairs...)}
}

func secretName(name string) bool {
	n := strings.ToUpper(name)
	return slices.ContainsFunc([]string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"}, func(w string) bool { return strings.Contains(n, w) })
}

// prefixes are what a masked token keeps, longest first.
var prefixes = []string{"github_pat_", "sk-proj-", "sk-ant-", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-",
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "sk-", "AKIA", "ASIA", "AIza", "eyJ"}

var tokenShapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`sk-[A-Za-z0-9_-]{20,}`,
		`gh[pousr]_[A-Za-z0-9]{30,}`,
		`github_pat_[A-Za-z0-9_]{22,}`,
		`(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
		`xox[abprs]-[A-Za-z0-9-]{10,}`,
		`glpat-[A-Za-z0-9_-]{20,}`,
		`AIza[A-Za-z0-9_-]{35}`,
		`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
	}, "|") + `)`)
})

// maskToken keeps a token's prefix; an sk- word without a digit is a
// word (sk-learn-…), not a key.
func maskToken(tok string) string {
	if strings.HasPrefix(tok, "sk-") && !strings.ContainsAny(tok[3:], "0123456789") {
		return tok
	}
	for _, p := range prefixes {
		if strings.HasPrefix(tok, p) {
			return p + Masked
		}
	}
	return Masked
}

// String masks s.
func (m *Masker) String(s string) string {
	if m == nil || s == "" {
		return s
	}
	return tokenShapes().ReplaceAllStringFunc(m.values.Replace(s), maskToken)
}

// JSON masks inside the string literals of the JSON text b (one value or
// several, e.g. JSON lines): each is decoded, masked and encoded again, so
// a mask never crosses a string's boundary and an escaped secret is found
// too. b is returned as is when nothing changed.
func (m *Masker) JSON(b []byte) []byte {
	if m == nil {
		return b
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := stringEnd(b, i)
		if end < 0 {
			break // unterminated: left as it is
		}
		if repl, ok := m.literal(b[i : end+1]); ok {
			out = append(append(out, b[last:i]...), repl...)
			last = end + 1
		}
		i = end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// stringEnd is the index of the quote closing the literal opened at i, or
// -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func (m *Masker) literal(lit []byte) ([]byte, bool) {
	var s string
	if bytes.IndexByte(lit, '\\') < 0 {
		s = string(lit[1 : len(lit)-1])
	} else if json.Unmarshal(lit, &s) != nil {
		return nil, false
	}
	masked := m.String(s)
	if masked == s {
		return nil, false
	}
	enc, err := json.Marshal(masked)
	return enc, err == nil
}

// Writer masks each Write's text before passing it on to w; a secret
// split across two Writes is not seen, so callers write whole lines.
func (m *Masker) Writer(w io.Writer) io.Writer {
	if m == nil {
		return w
	}
	return writer{w: w, mask: func(p []byte) []byte { return []byte(m.String(string(p))) }}
}

// JSONWriter is Writer for JSON text (see JSON).
func (m *Masker) JSONWriter(w io.Writer) io.Writer {
	if m == nil {
		return w
	}
	return writer{w: w, mask: m.JSON}
}

type writer struct {
	w    io.Writer
	mask func([]byte) []byte
}

func (w writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.mask(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
