package permission

import (
	"strings"
)

// A shell command as the hard deny list sees it: simple commands (argv
// with their redirect targets) grouped in pipelines, and the commands
// nested in substitutions. It reads enough of POSIX shell syntax to see
// what runs (quotes, escapes, operators, $(…), `…`, <(…)); where it
// cannot tell, it says so (Unclear) and hub asks.

// word is one argument; dynamic when its unquoted text expands ($VAR,
// $(…), `…`), so its value is not known before the shell runs.
type word struct {
	text    string
	dynamic bool
}

// simple is one simple command of a pipeline.
type simple struct {
	argv      []word
	redirects []string // targets of >, >>, >|, &>
	pipeStart bool     // first command of its pipeline
}

// parsed is a whole command line.
type parsed struct {
	cmds   []simple
	nested []string // commands inside $(…), `…`, <(…), >(…)
	// procSubst holds the process substitutions per command index.
	procSubst map[int][]string
	bad       bool // unbalanced quotes or parentheses
}

// parseShell splits a command line; it never fails, marking what it could
// not read as bad.
func parseShell(src string) parsed {
	p := &shellParser{src: []rune(src), out: parsed{procSubst: map[int][]string{}}}
	p.run()
	return p.out
}

type shellParser struct {
	src       []rune
	i         int
	out       parsed
	cur       simple
	wordBuf   strings.Builder
	inWord    bool
	dynamic   bool
	redirNext bool
	newPipe   bool
}

func (p *shellParser) run() {
	p.newPipe = true
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.src):
			if p.src[p.i+1] != '\n' {
				p.add(p.src[p.i+1])
			}
			p.i += 2
		case c == '\'':
			p.single()
		case c == '"':
			p.double()
		case c == '`':
			p.nested(p.until('`'), false)
		case c == '$' && p.peek(1) == '(' && p.peek(2) != '(':
			p.i++
			p.nested(p.group(), false)
		case (c == '<' || c == '>') && p.peek(1) == '(':
			p.i++
			p.nested(p.group(), true)
		case c == '$' && p.peek(1) == '{':
			p.dynamic = true
			p.add('$')
			p.i++
			p.wordBuf.WriteString("{" + p.until('}') + "}")
		case c == '$':
			p.dynamic = true
			p.add('$')
			p.i++
		case c == '#' && !p.inWord:
			p.comment()
		case c == ' ' || c == '\t':
			p.endWord()
			p.i++
		default:
			p.operator(c)
		}
	}
	p.endCommand(false)
}

func (p *shellParser) peek(n int) rune {
	if p.i+n < len(p.src) {
		return p.src[p.i+n]
	}
	return 0
}

func (p *shellParser) add(r rune) {
	p.inWord = true
	p.wordBuf.WriteRune(r)
}

func (p *shellParser) single() {
	p.inWord = true
	p.i++
	for p.i < len(p.src) && p.src[p.i] != '\'' {
		p.wordBuf.WriteRune(p.src[p.i])
		p.i++
	}
	if p.i >= len(p.src) {
		p.out.bad = true
	}
	p.i++
}

func (p *shellParser) double() {
	p.inWord = true
	p.i++
	for p.i < len(p.src) && p.src[p.i] != '"' {
		c := p.src[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.src):
			p.wordBuf.WriteRune(p.src[p.i+1])
			p.i += 2
		case c == '$' && p.peek(1) == '(':
			p.i++
			p.nested(p.group(), false)
		case c == '`':
			p.nested(p.until('`'), false)
		default:
			if c == '$' {
				p.dynamic = true
			}
			p.wordBuf.WriteRune(c)
			p.i++
		}
	}
	if p.i >= len(p.src) {
		p.out.bad = true
	}
	p.i++
}

// until reads up to the closing delimiter d (the opening one at p.i).
func (p *shellParser) until(d rune) string {
	p.i++
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != d {
		p.i++
	}
	if p.i >= len(p.src) {
		p.out.bad = true
		return string(p.src[start:])
	}
	s := string(p.src[start:p.i])
	p.i++
	return s
}

// group reads a parenthesised command (p.i at "("), quotes respected.
func (p *shellParser) group() string {
	depth, start := 0, p.i+1
	for ; p.i < len(p.src); p.i++ {
		switch p.src[p.i] {
		case '\'':
			for p.i++; p.i < len(p.src) && p.src[p.i] != '\''; p.i++ {
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				s := string(p.src[start:p.i])
				p.i++
				return s
			}
		}
	}
	p.out.bad = true
	return string(p.src[start:])
}

// nested records a substitution; as a word it is dynamic.
func (p *shellParser) nested(cmd string, proc bool) {
	p.out.nested = append(p.out.nested, cmd)
	if proc {
		idx := len(p.out.cmds)
		p.out.procSubst[idx] = append(p.out.procSubst[idx], cmd)
	}
	p.inWord, p.dynamic = true, true
	p.wordBuf.WriteString("$(…)")
}

func (p *shellParser) comment() {
	for p.i < len(p.src) && p.src[p.i] != '\n' {
		p.i++
	}
}

func (p *shellParser) operator(c rune) {
	switch c {
	case ';', '\n', '(', ')', '{', '}':
		p.endCommand(false)
		p.i++
	case '&':
		if p.peek(1) == '>' { // &> file
			p.endWord()
			p.redirNext = true
			p.i += 2
			return
		}
		p.endCommand(false)
		p.i++
		if p.peek(0) == '&' {
			p.i++
		}
	case '|':
		pipe := p.peek(1) != '|'
		p.endCommand(pipe)
		p.i++
		if !pipe {
			p.i++
		}
	case '>':
		p.endWord()
		p.redirNext = true
		p.i++
		for p.peek(0) == '>' || p.peek(0) == '|' || p.peek(0) == '&' {
			p.i++
		}
	case '<':
		p.endWord()
		p.i++
		for p.peek(0) == '<' {
			p.i++
		}
	default:
		if c >= '0' && c <= '9' && !p.inWord && p.peek(1) == '>' { // 2> file
			p.i++
			return
		}
		p.add(c)
		p.i++
	}
}

func (p *shellParser) endWord() {
	if !p.inWord {
		return
	}
	w := word{text: p.wordBuf.String(), dynamic: p.dynamic}
	p.wordBuf.Reset()
	p.inWord, p.dynamic = false, false
	if p.redirNext {
		p.redirNext = false
		p.cur.redirects = append(p.cur.redirects, w.text)
		return
	}
	p.cur.argv = append(p.cur.argv, w)
}

// endCommand closes the simple command; pipe says a pipeline goes on.
func (p *shellParser) endCommand(pipe bool) {
	p.endWord()
	if len(p.cur.argv) > 0 || len(p.cur.redirects) > 0 {
		p.cur.pipeStart = p.newPipe
		p.out.cmds = append(p.out.cmds, p.cur)
		p.newPipe = !pipe
	} else if !pipe {
		p.newPipe = true
	}
	p.cur = simple{}
}
