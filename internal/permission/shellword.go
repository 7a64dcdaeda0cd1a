package permission

import (
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Word expansion, as far as it is static: braces, quotes, ~, parameters hub
// knows and their :-, :?, :+ and := forms. Everything else is dynamic.

// fields expands words into arguments (brace expansion, field splitting).
func (r *reader) fields(words []*syntax.Word, sc *scope) []arg {
	var out []arg
	for _, w := range words {
		for _, bw := range braces(w) {
			out = append(out, r.expandWord(bw, sc, true)...)
			if len(out) > maxWords {
				return append(out[:maxWords], arg{text: "\x00", dynamic: true})
			}
		}
	}
	return out
}

// braces is brace expansion of w, bounded by maxWords.
func braces(w *syntax.Word) []*syntax.Word {
	wc := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(wc) { // no brace expansion
		return []*syntax.Word{w}
	}
	var out []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, wc) {
		if err != nil || len(out) >= maxWords {
			out = append(out, &syntax.Word{Parts: []syntax.WordPart{&syntax.CmdSubst{}}}) // stands for the rest: dynamic
			break
		}
		out = append(out, bw)
	}
	return out
}

// joined expands a word into one argument, without field splitting.
func (r *reader) joined(w *syntax.Word, sc *scope) arg {
	return joinArgs(r.expandWord(w, sc, false))
}

type wordBuilder struct {
	opaque bool // cur holds a dynamic part without a known possible value
	out    []arg
	cur    arg
	has    bool // cur holds something, maybe an empty quoted string
	split  bool
}

func (b *wordBuilder) add(a arg) {
	if a.dynamic && !a.maybe {
		b.opaque = true
	}
	b.cur.maybe = (b.cur.maybe || a.maybe) && !b.opaque
	b.cur.text += a.text
	b.cur.dynamic = b.cur.dynamic || a.dynamic
	b.cur.glob = b.cur.glob || a.glob
	b.cur.download = b.cur.download || a.download
	b.cur.under = b.cur.under || a.under
	b.cur.subst = b.cur.subst || a.subst
	b.has = true
}

func (b *wordBuilder) end() {
	if b.has {
		b.out = append(b.out, b.cur)
	}
	b.cur, b.has, b.opaque = arg{}, false, false
}

// addSplit adds an unquoted expansion's value, split at blanks.
func (b *wordBuilder) addSplit(a arg) {
	if !b.split || a.dynamic {
		b.add(a)
		return
	}
	parts := strings.FieldsFunc(a.text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
	lead := a.text != "" && strings.ContainsRune(" \t\n", rune(a.text[0]))
	trail := a.text != "" && strings.ContainsRune(" \t\n", rune(a.text[len(a.text)-1]))
	for i, p := range parts {
		if i > 0 || lead {
			b.end()
		}
		b.add(arg{text: p, glob: strings.ContainsAny(p, "*?["), download: a.download, subst: a.subst})
	}
	if trail && len(parts) > 0 {
		b.end()
	}
}

// addFields adds each of as as a field of its own ("$@").
func (b *wordBuilder) addFields(as []arg, add func(arg)) {
	for i, a := range as {
		if i > 0 {
			b.end()
		}
		add(a)
	}
}

func (r *reader) expandWord(w *syntax.Word, sc *scope, split bool) []arg {
	b := &wordBuilder{split: split}
	parts := mergeLits(w.Parts)
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				if home, rest, ok := r.tilde(v, len(parts) > 1, sc); ok {
					b.add(home)
					v = rest
				}
			}
			text, glob := unescape(v)
			b.add(arg{text: text, glob: glob})
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v, _, _ = expand.Format(nil, v, nil)
				v, _, _ = strings.Cut(v, "\x00")
			}
			b.add(arg{text: v})
		case *syntax.DblQuoted:
			r.dblQuoted(p, sc, b)
		default:
			r.expansion(p, sc, b, false)
		}
	}
	b.end()
	return b.out
}

func (r *reader) dblQuoted(q *syntax.DblQuoted, sc *scope, b *wordBuilder) {
	b.has = true
	if len(q.Parts) == 1 { // "$@": one field per parameter
		if pe, ok := q.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "@" && simpleParam(pe) {
			ps := r.positional(sc, 1)
			b.has = len(ps) > 0
			b.addFields(ps, b.add)
			return
		}
	}
	for _, p := range q.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.add(arg{text: unescapeDq(p.Value)})
		default:
			r.expansion(p, sc, b, true)
		}
	}
}

func (r *reader) expansion(p syntax.WordPart, sc *scope, b *wordBuilder, quoted bool) {
	add := b.addSplit
	if quoted {
		add = b.add
	}
	switch p := p.(type) {
	case *syntax.ParamExp:
		if !quoted && p.Param != nil && (p.Param.Value == "@" || p.Param.Value == "*") && simpleParam(p) {
			b.addFields(r.positional(sc, 1), b.addSplit)
			return
		}
		add(r.param(p, sc))
	case *syntax.CmdSubst:
		if out, ok := r.substOut[p]; ok { // $(echo x), $(printf x): known
			add(arg{text: out, subst: true})
			return
		}
		b.add(arg{text: "\x00", dynamic: true, subst: true, download: hasDownload(p)})
	case *syntax.ProcSubst:
		b.add(arg{text: "\x00", dynamic: true, download: hasDownload(p)})
	case *syntax.ExtGlob:
		b.add(arg{text: p.Op.String() + p.Pattern.Value + ")", glob: true})
	default: // arithmetic and the rest
		b.add(arg{text: "\x00", dynamic: true})
	}
}

func simpleParam(p *syntax.ParamExp) bool {
	return !p.Excl && !p.Length && !p.Width && !p.IsSet && p.Index == nil && p.Slice == nil && p.Repl == nil &&
		p.Names == 0 && p.Exp == nil && len(p.Modifiers) == 0 && p.NestedParam == nil && p.Flags == nil
}

var unknown = arg{text: "\x00", dynamic: true}

// param is the value of a parameter expansion, dynamic unless hub knows it.
func (r *reader) param(p *syntax.ParamExp, sc *scope) arg {
	if p.Param == nil {
		return unknown
	}
	e := p.Exp
	p2 := *p
	p2.Exp = nil
	is := func(ops ...syntax.ParExpOperator) bool { return e != nil && slices.Contains(ops, e.Op) }
	def := is(syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull)
	alt := is(syntax.AlternateUnset, syntax.AlternateUnsetOrNull)
	if !simpleParam(&p2) || e != nil && !def && !alt && !is(syntax.ErrorUnset, syntax.ErrorUnsetOrNull) {
		return r.paramOp(p, sc)
	}
	val, set, known := r.lookup(p.Param.Value, sc)
	has := set && !(val.text == "" && is(syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull, syntax.AlternateUnsetOrNull)) // a value the operator takes
	switch {
	case !known && def: // its value, or the default when unset: keep the default to check
		d := r.wordOrEmpty(e.Word, sc)
		if d.dynamic && !d.maybe {
			return unknown
		}
		return arg{text: d.text, dynamic: true, maybe: true, glob: d.glob}
	case !known:
		return unknown
	case def && !has, alt && has:
		return r.wordOrEmpty(e.Word, sc)
	case alt:
		return arg{}
	}
	return val // no operator, an error operator, or a default not taken
}

// paramOp evaluates ${X%/*}, ${X/a/b}, ${#X}, … of a known variable, literal patterns only.
func (r *reader) paramOp(p *syntax.ParamExp, sc *scope) arg {
	if p.Param == nil || p.Excl || p.Index != nil || p.Names != 0 || p.NestedParam != nil || p.Flags != nil ||
		!syntax.ValidName(p.Param.Value) { // positional and special parameters too
		return unknown
	}
	val, set, known := r.lookup(p.Param.Value, sc)
	if !known || !set {
		return unknown
	}
	literal := true
	syntax.Walk(p, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			literal = false
		case *syntax.ParamExp:
			literal = literal && n == syntax.Node(p)
		}
		return literal
	})
	if !literal {
		return unknown
	}
	cfg := &expand.Config{Env: expand.ListEnviron(p.Param.Value + "=" + val.text)}
	s, err := expand.Literal(cfg, &syntax.Word{Parts: []syntax.WordPart{p}})
	if err != nil {
		return unknown
	}
	return arg{text: s}
}

func (r *reader) wordOrEmpty(w *syntax.Word, sc *scope) arg {
	if w == nil {
		return arg{}
	}
	return r.joined(w, sc)
}

// lookup finds a parameter: set says it has a value, known that hub knows whether and which.
func (r *reader) lookup(name string, sc *scope) (val arg, set, known bool) {
	if n, err := strconv.Atoi(name); err == nil {
		if sc.pos == nil {
			return unknown, false, false
		}
		if n < len(sc.pos) {
			return sc.pos[n], true, !sc.pos[n].dynamic
		}
		return arg{}, false, true
	}
	if name == "#" && sc.pos != nil {
		return arg{text: strconv.Itoa(max(len(sc.pos)-1, 0))}, true, true
	}
	v, ok := sc.vars[name]
	if !ok || v.dynamic {
		return unknown, false, false
	}
	return v, true, true
}

// positional is $from… ; one dynamic argument when unknown.
func (r *reader) positional(sc *scope, from int) []arg {
	if sc.pos == nil {
		return []arg{unknown}
	}
	if from >= len(sc.pos) {
		return nil
	}
	return sc.pos[from:]
}

// tilde expands a leading ~, ~user, ~+: the value, and the rest of lit.
func (r *reader) tilde(lit string, more bool, sc *scope) (arg, string, bool) {
	name := lit[1:]
	rest := ""
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name, rest = name[:i], name[i:]
	} else if more {
		return arg{}, "", false
	}
	switch name {
	case "", "+":
		h, _, _ := r.lookup(map[string]string{"": "HOME", "+": "PWD"}[name], sc) // unknown when hub does not know it
		return h, rest, true
	case "-":
		return unknown, rest, true
	}
	return arg{text: userHome(name)}, rest, true
}

// userHome is where ~name points; hub does not look users up: the same on every machine.
func userHome(name string) string {
	switch {
	case name == "root" && runtime.GOOS == "darwin":
		return "/var/root"
	case name == "root":
		return "/root"
	case runtime.GOOS == "darwin":
		return "/Users/" + name
	}
	return "/home/" + name
}

// mergeLits joins adjacent literals (brace expansion leaves them apart).
func mergeLits(parts []syntax.WordPart) []syntax.WordPart {
	out := make([]syntax.WordPart, 0, len(parts))
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); ok && len(out) > 0 {
			if prev, ok := out[len(out)-1].(*syntax.Lit); ok {
				out[len(out)-1] = &syntax.Lit{Value: prev.Value + l.Value}
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// unescape removes an unquoted literal's backslashes; glob: it holds pattern characters.
func unescape(s string) (string, bool) {
	var sb strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				sb.WriteByte(s[i])
			}
			continue
		case c == '*' || c == '?' || c == '[':
			glob = true
		}
		sb.WriteByte(c)
	}
	return sb.String(), glob
}

func unescapeDq(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\$`\"\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// hasDownload reports a substitution that runs a downloader anywhere.
func hasDownload(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(x syntax.Node) bool {
		if ce, ok := x.(*syntax.CallExpr); ok {
			for _, w := range ce.Args {
				lit := w.Lit()
				if len(w.Parts) == 1 {
					if q, ok := w.Parts[0].(*syntax.SglQuoted); ok {
						lit = q.Value
					}
				}
				found = found || downloaders[progName(lit)]
			}
		}
		return !found
	})
	return found
}

// resolve is the absolute paths operand a names in each possible cwd; ok is false when unknown.
func resolve(a arg, cwds []string) ([]string, bool) {
	if a.dynamic || remote(a.text) { // another machine's is not looked up: unknown
		return nil, false
	}
	t := shellPath(a.text)
	if path.IsAbs(t) {
		return []string{path.Clean(t)}, true
	}
	if cwds == nil {
		return nil, false
	}
	out := make([]string, 0, len(cwds))
	for _, d := range cwds {
		out = append(out, path.Join(d, t))
	}
	return out, true
}

// shellPath is t as the shells of Windows write it: C:\x is /c/x.
func shellPath(t string) string {
	if len(t) >= 2 && t[1] == ':' && (t[0]|0x20 >= 'a' && t[0]|0x20 <= 'z') && (len(t) == 2 || t[2] == '/' || t[2] == '\\') {
		return "/" + string(t[0]|0x20) + strings.ReplaceAll(t[2:], `\`, "/")
	}
	return t
}
