package permission

import (
	"cmp"
	"encoding/base64"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hubdev/hub/adapters"
)

// The PowerShell reader: a line PowerShell runs, read into the calls the sh
// reader makes, each cmdlet as the program it stands for (psCmdlets), so the
// deny list, the rules and the "always" scopes apply unchanged. Code in
// (…), $(…), @(…) and {…} is read wherever it stands. No maintained Go
// parser of PowerShell exists: this is a small tokenizer.

// windowsDeny is the deny list's verdict on req's line read as PowerShell
// and as cmd.exe: on Windows a line may run in either and hub cannot tell
// which. Only refusals count, so an sh line stays as clear as sh reads it.
func (req Request) windowsDeny() string {
	for _, rd := range req.windowsReadings() {
		if rd.deny != "" {
			return rd.deny
		}
	}
	return ""
}

// windowsReadings are req's line read as PowerShell and as cmd.exe; none
// for an argv or a line whose shell req knows.
func (req Request) windowsReadings() []*reading {
	if req.Argv || req.Command == "" || req.Shell != adapters.ShellUnknown {
		return nil
	}
	return []*reading{readIn(adapters.ShellPowerShell, req.Command, req.dirs()), readIn(adapters.ShellCmd, req.Command, req.dirs())}
}

// readIn reads line in shell's grammar (sh's when unknown); cmd.exe's first
// line only: cmd /c runs no more.
func readIn(shell adapters.Shell, line string, dirs []string) *reading {
	switch shell {
	case adapters.ShellPowerShell:
		return readAs(line, dirs, func(r *reader, sc *scope) { r.psScript(line, &runCtx{sc: sc}) })
	case adapters.ShellCmd:
		first := firstLine(line)
		return readAs(first, dirs, func(r *reader, sc *scope) { r.cmdScript(first, &runCtx{sc: sc}) })
	}
	return readLine(line, dirs)
}

// psWord is one argument: its values (a, b is an array of two).
type psWord struct {
	vals []arg
	bare bool // a bareword: a command name, a -Parameter or a literal
	raw  string
}

type psCmd struct {
	words  []psWord
	redirs []redir
	call   bool // after the call operator & or .
}

type psLex struct {
	r   *reader
	src string
	i   int
	x   *runCtx
}

func (r *reader) psScript(src string, x *runCtx) input {
	if r.depth >= maxDepth {
		r.out.unclear = true
		return input{kind: inUnknown}
	}
	r.depth++
	defer func() { r.depth-- }()
	src = psTypography.Replace(src)
	if !psParses(src) { // PowerShell runs nothing of a script it cannot parse
		r.out.unclear = true
		return input{kind: inUnknown}
	}
	if psShadowDelete().MatchString(src) { // Get-WmiObject Win32_ShadowCopy | Remove-WmiObject, in a variable too
		r.run([]arg{{text: "vssadmin"}, {text: "delete"}, {text: "shadows"}}, &runCtx{sc: x.sc.clone(), layers: x.layers})
	}
	for _, m := range psSetEnv().FindAllStringSubmatchIndex(src, 8) { // as $env:NAME = …, for the whole line
		v := unknown
		if m[4] >= 0 || m[6] >= 0 {
			v = arg{text: src[max(m[4], m[6]):max(m[5], m[7])]}
		}
		r.winSetEnv(src[m[2]:m[3]], v, x)
	}
	l := &psLex{r: r, src: src, x: x}
	out := input{kind: inUnknown}
	for l.i < len(l.src) {
		if r.steps++; r.steps > maxSteps {
			r.out.unclear = true // as the sh reader: a line too long to read is asked every time
			break
		}
		start := l.i
		name := l.assignment()
		rhs := l.i
		pipe := l.pipeline()
		if len(pipe) > 0 {
			out = r.psPipeline(pipe, x, strings.TrimSpace(src[start:l.i]))
		}
		if name != "" {
			v := arg{text: "\x00", dynamic: true}
			if vals, ok := l.literal(strings.TrimRight(l.src[rhs:l.i], "; \t\r\n)}")); ok && len(vals) == 1 { // $p = 'r'+'m'
				v = vals[0]
			}
			x.sc.vars[name] = v
			if env, ok := strings.CutPrefix(name, "ps:env:"); ok { // $env:GIT_PAGER = '…'
				r.winSetEnv(env, v, x)
			}
		}
		if l.i == start {
			l.i++ // a stray ) or }
		}
	}
	return out
}

// PowerShell reads – — ― as - and ‘ ’ ‚ ‛ “ ” „ as quotes (Remove-Item
// –Recurse ‘~’); psDashes only the dashes (pwsh.exe's own parameters).
var (
	psDashes     = strings.NewReplacer("\u2013", "-", "\u2014", "-", "\u2015", "-")
	psTypography = strings.NewReplacer("\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
		"\u201c", `"`, "\u201d", `"`, "\u201e", `"`)
)

// psParses reports a script without a < outside strings and comments: an sh
// here-document is a parse error, and then PowerShell runs nothing.
func psParses(s string) bool {
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "<#"):
			j := strings.Index(s[i:], "#>")
			if j < 0 {
				return true
			}
			i += j + 1
		case s[i] == '<':
			return false
		case s[i] == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case s[i] == '`':
			i++
		case s[i] == '\'' || s[i] == '"':
			i = psStringEnd(s, i)
		}
	}
	return true
}

// psStringEnd is the index of the quote closing the string at i.
func psStringEnd(s string, i int) int {
	q := s[i]
	if i > 0 && s[i-1] == '@' && (strings.HasPrefix(s[i+1:], "\n") || strings.HasPrefix(s[i+1:], "\r\n")) { // a here-string
		if j := strings.Index(s[i:], "\n"+string(q)+"@"); j >= 0 {
			return i + j + 1
		}
		return len(s)
	}
	for i++; i < len(s); i++ {
		switch {
		case s[i] == '`' && q == '"':
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
		case s[i] == q:
			return i
		}
	}
	return len(s)
}

var psAssign = lazyRE(`^\s*\$(?:\{([^}]*)\}|([\w:]+))\s*[-+*/%]?=[^=]`)

// assignment reads the $NAME = at l.i: "ps:name", "" for none.
func (l *psLex) assignment() string {
	m := psAssign().FindStringSubmatchIndex(l.src[l.i:])
	if m == nil {
		return ""
	}
	name := strings.ToLower(l.src[l.i+max(m[2], m[4]) : l.i+max(m[3], m[5])])
	l.i += m[1] - 1
	return "ps:" + name
}

func (l *psLex) pipeline() []psCmd {
	var pipe []psCmd
	cmd := psCmd{}
	for {
		l.space()
		if l.i >= len(l.src) {
			break
		}
		c := l.src[l.i]
		switch {
		case c == ';' || c == '\n' || c == '\r' || c == ')' || c == '}':
			l.i++
			return append(pipe, cmd)
		case strings.HasPrefix(l.src[l.i:], "&&") || strings.HasPrefix(l.src[l.i:], "||"):
			l.i += 2
			return append(pipe, cmd)
		case c == '|':
			for l.i++; l.i < len(l.src) && strings.ContainsRune(" \t\r\n", rune(l.src[l.i])); l.i++ { // the pipeline goes on past a line break
			}
			pipe, cmd = append(pipe, cmd), psCmd{}
			continue
		case c == '&' && len(cmd.words) == 0 && !cmd.call, c == '.' && len(cmd.words) == 0 && !cmd.call && l.i+1 < len(l.src) && strings.ContainsRune(" \t'\"{$", rune(l.src[l.i+1])):
			l.i++
			cmd.call = true
			continue
		case c == '&':
			l.i++ // a background job: the statement ends
			return append(pipe, cmd)
		case c == '#':
			if j := strings.IndexByte(l.src[l.i:], '\n'); j >= 0 {
				l.i += j
			} else {
				l.i = len(l.src)
			}
			continue
		case strings.HasPrefix(l.src[l.i:], "<#"):
			if j := strings.Index(l.src[l.i:], "#>"); j >= 0 {
				l.i += j + 2 // Remove-Item <# … #> -Recurse ~: the command goes on
			} else {
				l.i = len(l.src)
			}
			continue
		}
		if op, n := psRedir(l.src[l.i:]); n > 0 {
			l.i += n
			if op == 0 { // 2>&1: a copy of a stream
				continue
			}
			l.space()
			for _, v := range l.word().vals {
				cmd.redirs = append(cmd.redirs, redir{op: op, target: psPath(v, l.r.home)})
			}
			continue
		}
		if strings.HasPrefix(l.src[l.i:], "--%") { // stop parsing: the rest of the line as it is
			l.i += 3
			end := strings.IndexAny(l.src[l.i:], "\n|")
			if end < 0 {
				end = len(l.src) - l.i
			}
			for _, f := range strings.Fields(l.src[l.i : l.i+end]) {
				e := l.r.cmdExpand(f, l.x.sc) // PowerShell expands %VAR% there, as cmd does
				a := arg{text: strings.NewReplacer("\x01", "", "\x00", "").Replace(e), dynamic: strings.Contains(e, "\x00")}
				cmd.words = append(cmd.words, psWord{vals: []arg{a}, bare: true, raw: f})
			}
			l.i += end
			continue
		}
		cmd.words = append(cmd.words, l.word())
	}
	if len(cmd.words) > 0 || len(cmd.redirs) > 0 || len(pipe) > 0 {
		pipe = append(pipe, cmd)
	}
	return pipe
}

// psRedir is the redirection at the start of s (any stream, to a file), 0
// for a stream merge (2>&1); n is its length.
func psRedir(s string) (op syntax.RedirOperator, n int) {
	if len(s) > 1 && strings.ContainsRune("123456*", rune(s[0])) && s[1] == '>' {
		n, s = 1, s[1:]
	}
	switch {
	case strings.HasPrefix(s, ">&"):
		return 0, n + 3
	case strings.HasPrefix(s, ">>"):
		return syntax.AppOut, n + 2
	case strings.HasPrefix(s, ">"):
		return syntax.RdrOut, n + 1
	}
	return 0, 0
}

func (l *psLex) space() {
	for l.i < len(l.src) {
		switch {
		case l.src[l.i] == ' ' || l.src[l.i] == '\t':
			l.i++
		case strings.HasPrefix(l.src[l.i:], "`\n"), strings.HasPrefix(l.src[l.i:], "`\r\n"): // a line continued
			l.i = strings.IndexByte(l.src[l.i:], '\n') + l.i + 1
		default:
			return
		}
	}
}

// word reads one argument: its parts up to a space or an operator, and
// the array elements a comma separates.
func (l *psLex) word() psWord {
	start := l.i
	w := psWord{bare: true}
	cur := arg{}
	glob := false
	flush := func() {
		cur.glob = glob
		w.vals = append(w.vals, cur)
		cur, glob = arg{}, false
	}
	for l.i < len(l.src) {
		c := l.src[l.i]
		if j := skipBlanks(l.src, l.i); (c == ' ' || c == '\t') && j < len(l.src) && l.src[j] == ',' {
			l.i = j // ./a , ~: the array goes on past blanks
			continue
		}
		if strings.ContainsRune(" \t\r\n;|)}", rune(c)) || c == '&' || l.i > start && (c == '>' || strings.HasPrefix(l.src[l.i:], "2>")) {
			break
		}
		switch {
		case c == ',':
			l.i++
			flush()
			for l.space(); l.i < len(l.src) && (l.src[l.i] == '\n' || l.src[l.i] == '\r'); l.space() {
				l.i++ // ./a,<newline>~: the array goes on
			}
			continue
		case c == '@' && l.i+2 < len(l.src) && (l.src[l.i+1] == '\'' || l.src[l.i+1] == '"') && psStringEnd(l.src, l.i+1) != psStringEnd(l.src[l.i+1:], 0)+l.i+1:
			w.bare = false // a here-string: its text as it is; with a $ in @"…"@, unknown
			end := psStringEnd(l.src, l.i+1)
			cur.text += l.src[min(l.i+3, end):end]
			cur.dynamic = cur.dynamic || l.src[l.i+1] == '"' && strings.Contains(l.src[l.i:end], "$")
			l.i = min(end+2, len(l.src))
			continue
		case c == '\'':
			w.bare = w.bare && l.i > start
			cur.text += l.single()
			continue
		case c == '"':
			w.bare = w.bare && l.i > start
			l.double(&cur)
			continue
		case c == '`' && l.i+1 < len(l.src):
			cur.text += psEscape(l.src[l.i+1])
			l.i += 2
			continue
		case c == '$' && l.i+1 < len(l.src) && l.src[l.i+1] == '(', c == '@' && l.i+1 < len(l.src) && (l.src[l.i+1] == '(' || l.src[l.i+1] == '{'), c == '(', c == '{':
			w.bare = w.bare && l.i > start
			value := l.i == start || l.src[l.i-1] == ',' // not a method's arguments
			l.i += map[bool]int{true: 1, false: 0}[c == '$' || c == '@']
			open := l.src[l.i]
			if end := psMatch(l.src, l.i); open == '(' && value && end < len(l.src) {
				if vals, ok := l.literal(l.src[l.i+1 : end]); ok { // ('r'+'m'), @('~'): values hub can compute
					for j, v := range vals {
						if j > 0 {
							flush()
						}
						cur.text += v.text
						cur.dynamic = cur.dynamic || v.dynamic || end+1 < len(l.src) && strings.ContainsRune(".[", rune(l.src[end+1]))
					}
					l.i = end + 1
					continue
				}
			}
			cur.download = cur.download || open == '(' && psCradle().MatchString(cur.text) // (New-Object Net.WebClient).DownloadString(…)
			dl := l.sub(open)
			if open == '(' || c == '@' {
				cur.dynamic, cur.subst, cur.download = true, true, cur.download || dl
				cur.text += "\x00"
			} else {
				cur.dynamic = true // a script block as a value
				cur.text += "{}"
			}
			continue
		case c == '@' && l.i == start && psSplat().MatchString(l.src[l.i:]): // @args: parameters only PowerShell knows
			l.i += len(psSplat().FindString(l.src[l.i:]))
			cur.text, cur.dynamic = cur.text+"\x00", true
			continue
		case c == '$':
			w.bare = w.bare && l.i > start
			l.variable(&cur)
			continue
		case c == '@' && l.i == start && l.i+1 < len(l.src) && psVarName().MatchString("$"+l.src[l.i+1:]): // @p: splatted parameters hub cannot know
			l.variable(&cur)
			cur.dynamic, w.bare = true, false
			continue
		case c == '*' || c == '?' || c == '[':
			glob = true
		}
		cur.text += l.src[l.i : l.i+1] // a byte: a rune's bytes stay as they are
		l.i++
	}
	flush()
	w.raw = l.src[start:l.i]
	return w
}

var (
	cmdSwitch  = lazyRE(`^/[A-Za-z]{1,2}$`) // cmd's /s, /q, /y: not a path PowerShell is given
	psSplat    = lazyRE(`^@[\w?:]+`)
	psJoinPath = lazyRE(`(?i)^\s*join-path\s+(?:-path\s+)?([^\s;|(){}]+)\s+(?:-childpath\s+)?([^\s;|(){}]+)\s*$`)
)

// literal is the value of strings and variables joined by + and listed by
// , ('r'+'m', "$HOME" + '\.ssh', 'a','b'); ok is false for anything else.
func (l *psLex) literal(src string) (vals []arg, ok bool) {
	if m := psJoinPath().FindStringSubmatch(src); m != nil { // Join-Path $HOME .ssh
		a, b := (&psLex{r: l.r, src: m[1], x: l.x}).word().vals[0], (&psLex{r: l.r, src: m[2], x: l.x}).word().vals[0]
		return []arg{{text: a.text + "/" + b.text, dynamic: a.dynamic || b.dynamic}}, true
	}
	s := &psLex{r: l.r, src: psTypography.Replace(src), x: l.x}
	cur, operand := arg{}, true
	for s.space(); s.i < len(s.src); s.space() {
		switch c := s.src[s.i]; {
		case operand && c == '\'':
			cur.text += s.single()
		case operand && c == '"':
			s.double(&cur)
		case operand && c == '$' && !strings.HasPrefix(s.src[s.i:], "$("):
			s.variable(&cur)
		case operand && (strings.HasPrefix(s.src[s.i:], "@'\n") || strings.HasPrefix(s.src[s.i:], "@\"\n")): // a here-string
			w := s.word()
			cur.text, cur.dynamic = cur.text+w.vals[0].text, cur.dynamic || w.vals[0].dynamic
		case !operand && (c == '+' || c == ','):
			s.i++
			if c == ',' {
				vals, cur = append(vals, cur), arg{}
			}
		case c == '\n' || c == '\r':
			s.i++
			continue
		default:
			return nil, false
		}
		operand = !operand
	}
	return append(vals, cur), !operand
}

func psEscape(c byte) string {
	if e, ok := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '0': "\x00", 'a': "\a", 'b': "\b", 'e': "\x1b", 'f': "\f", 'v': "\v"}[c]; ok {
		return e
	}
	return string([]byte{c})
}

// single reads a '…' string (a doubled quote is one).
func (l *psLex) single() string {
	var b strings.Builder
	for l.i++; l.i < len(l.src); l.i++ {
		if l.src[l.i] == '\'' {
			if l.i+1 == len(l.src) || l.src[l.i+1] != '\'' {
				l.i++
				return b.String()
			}
			l.i++
		}
		b.WriteByte(l.src[l.i])
	}
	return b.String()
}

func (l *psLex) double(cur *arg) {
	for l.i++; l.i < len(l.src); {
		c := l.src[l.i]
		switch {
		case c == '"' && l.i+1 < len(l.src) && l.src[l.i+1] == '"':
			cur.text += `"`
			l.i += 2
		case c == '"':
			l.i++
			return
		case c == '`' && l.i+1 < len(l.src):
			cur.text += psEscape(l.src[l.i+1])
			l.i += 2
		case c == '$' && l.i+1 < len(l.src) && l.src[l.i+1] == '(':
			l.i++
			cur.download = l.sub('(') || cur.download
			cur.dynamic, cur.subst = true, true
			cur.text += "\x00"
		case c == '$':
			l.variable(cur)
		default:
			cur.text += l.src[l.i : l.i+1]
			l.i++
		}
	}
}

var psVarName = lazyRE(`^\$(?:\{([^}]*)\}|((?:[A-Za-z]\w*:)?[\w?]+|[$^?_]))`)

func (l *psLex) variable(cur *arg) {
	m := psVarName().FindStringSubmatch(l.src[l.i:])
	if m == nil {
		cur.text += "$"
		l.i++
		return
	}
	l.i += len(m[0])
	v := l.r.psVar(strings.ToLower(m[1]+m[2]), l.x.sc)
	cur.text += v.text
	cur.dynamic = cur.dynamic || v.dynamic
	cur.download = cur.download || v.download
}

// psVar is a variable's value, where hub knows it.
func (r *reader) psVar(name string, sc *scope) arg {
	if env, ok := strings.CutPrefix(name, "env:"); ok {
		return r.winVar(env, sc)
	}
	switch name {
	case "home":
		return arg{text: r.home}
	case "profile": // its .CurrentUserAllHosts and the others lie in the same directory, kept as ~/.bashrc is (startupDirs)
		return arg{text: r.home + "/Documents/PowerShell/Microsoft.PowerShell_profile.ps1"}
	case "pwd":
		return r.winVar("cd", sc)
	case "null", "false":
		return arg{}
	case "true":
		return arg{text: "True"}
	}
	if v, ok := sc.vars["ps:"+name]; ok {
		return v
	}
	return unknown
}

// winSysVars are Windows' variables naming the system's folders.
var winSysVars = map[string]string{
	"systemroot": "C:/Windows", "windir": "C:/Windows", "systemdrive": "C:", "public": "C:/Users/Public",
	"programfiles": "C:/Program Files", "programw6432": "C:/Program Files",
	"programfiles(x86)": "C:/Program Files (x86)", "comspec": "C:/Windows/System32/cmd.exe",
	"programdata": "C:/ProgramData", "allusersprofile": "C:/ProgramData",
}

// winVar is a Windows environment variable's value, where hub knows it: the
// home and its folders, the system's folders, the directory.
func (r *reader) winVar(name string, sc *scope) arg {
	drive, rest := "", r.home
	if len(r.home) > 2 && r.home[2] == '/' {
		drive, rest = r.home[:2], r.home[2:]
	}
	name = strings.ToLower(name)
	if v, ok := winSysVars[name]; ok {
		return arg{text: v}
	}
	homeVars := map[string]string{"userprofile": r.home, "home": r.home, "username": path.Base(r.home),
		"homedrive": drive, "homepath": rest,
		"appdata": r.home + "/AppData/Roaming", "localappdata": r.home + "/AppData/Local"}
	if v, ok := homeVars[name]; ok {
		return arg{text: v}
	}
	if name == "cd" && len(sc.cwds) == 1 {
		return arg{text: sc.cwds[0]}
	}
	return unknown
}

// sub reads the code in the brackets at l.i; true when what it writes
// carries a download.
func (l *psLex) sub(open byte) bool {
	end := psMatch(l.src, l.i)
	body := l.src[l.i+1 : max(end, l.i+1)]
	l.i = min(end+1, len(l.src))
	sub := &runCtx{sc: l.x.sc.clone(), layers: l.x.layers, opaque: l.x.opaque}
	return l.r.psScript(body, sub).dl
}

// psMatch is the index of the bracket closing the one at i, len(s) when none.
func psMatch(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			depth++
		case ')', '}':
			if depth--; depth == 0 {
				return i
			}
		case '`':
			i++
		case '\'':
			for i++; i < len(s) && s[i] != '\''; i++ {
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '`' {
					i++
				}
			}
		}
	}
	return len(s)
}

// psKeywords start statements that run no command of their name.
var psKeywords = set("if", "elseif", "else", "while", "do", "until", "for", "foreach", "switch", "try", "catch", "finally",
	"trap", "function", "filter", "workflow", "param", "begin", "process", "end", "return", "throw", "exit", "break",
	"continue", "data", "class", "enum", "using", "dynamicparam", "clean", "configuration")

func (r *reader) psPipeline(pipe []psCmd, x *runCtx, text string) input {
	if m := psSpawn().FindStringIndex(text); m != nil { // a process made by WMI or .NET: its strings as a command line
		var vals []arg
		for _, s := range psQuoted().FindAllString(text[m[1]:], 4) {
			vals = append(vals, (&psLex{r: r, src: s, x: x}).word().vals...)
		}
		if line := joinArgs(vals); len(vals) > 0 && r.readable(line) {
			r.cmdScript(line.text, &runCtx{sc: x.sc.clone(), layers: x.layers, opaque: true})
		}
	}
	in := x.stdin
	for i, c := range pipe {
		y := &runCtx{sc: x.sc, stdin: in, redirs: c.redirs, layers: x.layers, opaque: x.opaque}
		if len(pipe) > 1 {
			y.sc = x.sc.clone()
		}
		if w := c.words; i == 0 && len(pipe) > 1 && !c.call && len(w) == 1 && !w[0].bare && !anyDynamic(w[0].vals) {
			vals := slices.Clone(w[0].vals) // "~" | Remove-Item: a value piped on, as Write-Output's
			for j := range vals {
				if !strings.ContainsAny(vals[j].text, " \t\n") { // a path, not a line of code ("…" | iex)
					vals[j] = psPath(vals[j], r.home)
				}
			}
			in = r.run(append([]arg{{text: "echo"}}, vals...), y)
			continue
		}
		in = r.psCommand(c, y, text)
	}
	return in
}

func (r *reader) psCommand(c psCmd, x *runCtx, text string) input {
	if len(c.words) == 0 {
		return r.run(nil, x)
	}
	first := c.words[0]
	if keyword := psKeywords[strings.ToLower(first.raw)]; !c.call && (!first.bare || keyword || psNumber(first.raw) || strings.HasPrefix(first.raw, "[")) {
		if !keyword {
			r.psExpr(text, x) // an expression: what it calls is read above
		}
		if len(c.redirs) > 0 {
			r.run(nil, x)
		}
		if len(c.words) == 1 && len(first.vals) == 1 && !first.bare && !first.vals[0].dynamic { // "text" | iex
			return input{kind: inText, text: first.vals[0].text + "\n"}
		}
		return input{kind: inUnknown, dl: slices.ContainsFunc(first.vals, func(a arg) bool { return a.download })}
	}
	if c.call && len(first.vals) == 1 && first.vals[0].text == "{}" {
		return input{kind: inUnknown} // & { … }: read above
	}
	prog := joinArgs(first.vals)
	if to, ok := x.sc.vars["psalias:"+strings.ToLower(prog.text)]; ok && !prog.dynamic { // Set-Alias x Remove-Item; x -r ~
		prog = to
	}
	cmdlet := psCmdletName(prog)
	if slices.Contains([]string{"set-alias", "sal", "new-alias", "nal"}, cmdlet) {
		r.psAlias(c.words[1:], x.sc)
	}
	r.psRemote(cmdlet, c.words[1:])
	if spec, ok := psCmdlets[cmdlet]; ok && !prog.dynamic {
		words := []string{prog.text} // the cmdlet's own words are a layer, as a wrapper's: a rule may name them
		for _, w := range c.words[1:] {
			words = append(words, w.raw)
		}
		x.layers = append(x.layers[:len(x.layers):len(x.layers)], words)
		if cmdlet != strings.ToLower(prog.text) { // and by the cmdlet's name: Remove-Item names ri and del
			x.layers = append(x.layers, append([]string{cmdlet}, words[1:]...))
		}
		return r.psCmdlet(spec, c.words[1:], x)
	}
	if (cmdlet == "foreach-object" || cmdlet == "%" || cmdlet == "foreach") && slices.ContainsFunc(c.words[1:], func(w psWord) bool {
		return w.bare && strings.EqualFold(w.raw, "delete")
	}) {
		return r.run([]arg{{text: "xargs"}, {text: "rm"}, {text: "-r"}}, x) // gci ~ -r | % Delete: each item piped in deleted
	}
	argv := []arg{prog}
	for _, w := range c.words[1:] {
		quoted := strings.HasPrefix(w.raw, "'") || strings.HasPrefix(w.raw, `"`)
		for _, v := range w.vals {
			switch {
			case winShell(prog):
			case quoted: // PowerShell gives a program a quoted ~ as it is
				v = winPath(v)
			default:
				v = psPath(v, r.home)
			}
			argv = append(argv, v)
		}
	}
	return r.run(argv, x)
}

// psAlias keeps the alias Set-Alias [-Name] N [-Value] V makes.
func (r *reader) psAlias(words []psWord, sc *scope) {
	var pos []arg
	named := map[string]arg{}
	for i := 0; i < len(words); i++ {
		t := strings.ToLower(words[i].vals[0].text)
		switch {
		case words[i].bare && len(t) > 1 && t[0] == '-' && i+1 < len(words) && (strings.HasPrefix("-name", t) || strings.HasPrefix("-value", t)):
			named[t[:2]], i = words[i+1].vals[0], i+1
		case words[i].bare && len(t) > 2 && (strings.HasPrefix("-option", t) || strings.HasPrefix("-scope", t) || strings.HasPrefix("-description", t)):
			i++
		case words[i].bare && strings.HasPrefix(t, "-"):
		default:
			pos = append(pos, words[i].vals[0])
		}
	}
	for _, k := range []string{"-n", "-v"} {
		if _, ok := named[k]; !ok && len(pos) > 0 {
			named[k], pos = pos[0], pos[1:]
		}
	}
	if n, ok := named["-n"]; ok && !n.dynamic {
		sc.vars["psalias:"+strings.ToLower(n.text)] = cmp.Or(named["-v"], unknown)
	}
}

func psNumber(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// psCmdletName is a command word's cmdlet, module-qualified or aliased too.
func psCmdletName(a arg) string {
	n := strings.ToLower(a.text)
	if i := strings.LastIndexByte(n, '\\'); i >= 0 && strings.Contains(n[:i], ".") {
		n = n[i+1:]
	}
	return cmp.Or(psAliases[n], n)
}

// psPath is a word as the programs of Windows read a path: \ is /, a
// leading ~ is the home.
func psPath(a arg, home string) arg {
	a = winPath(a)
	a.glob = a.glob || strings.ContainsAny(a.text, "*?[") // -Path expands wildcards, quoted or not
	if a.text == "~" || strings.HasPrefix(a.text, "~/") {
		a.text = home + a.text[1:]
	}
	return a
}

// winShell reports cmd, pwsh or powershell: their arguments are code, not paths.
func winShell(a arg) bool {
	p := progName(a.text)
	return !a.dynamic && (p == "cmd" || p == "pwsh" || p == "powershell")
}

// winPath is a word with \ read as /, and a path's other spellings as
// the path: FileSystem::C:\x, \\?\C:\x, \\.\C:\x, \\localhost\C$\x.
func winPath(a arg) arg {
	a.text = strings.ReplaceAll(a.text, `\`, "/")
	for _, re := range []*regexp.Regexp{psProvider(), winDevice()} {
		a.text = re.ReplaceAllString(a.text, "$1")
	}
	if m := winAdminShare().FindStringSubmatchIndex(a.text); m != nil {
		a.text = a.text[m[2]:m[3]] + ":/" + a.text[m[1]:]
	}
	a.text, _ = regPath(a.text, false) // HKCU:\Software, Registry::HKEY_CURRENT_USER\Software
	return a
}

var (
	psProvider    = lazyRE(`(?i)^(?:microsoft\.powershell\.core/)?filesystem::(.)`)
	winDevice     = lazyRE(`^//[?.]/([A-Za-z]:)`)
	winAdminShare = lazyRE(`(?i)^//(?:localhost|127\.0\.0\.1|\.|\?)/(?:unc/(?:localhost|127\.0\.0\.1)/)?([a-z])\$(?:/|$)`)
)

// .NET calls on a file: [IO.File]::Delete(…), …
var psDotNet = lazyRE(`(?i)\[(?:system\.)?io\.(directory|file)\]::(delete|writeall\w*|appendall\w*|create\w*)\s*\(\s*('[^']*'|"[^"]*"|\$[\w:]+)`)

var (
	psCradle   = lazyRE(`(?i)\.download(string|data)(async|taskasync)?$`)
	psDownload = lazyRE(`(?i)\.downloadfile(?:async|taskasync)?\s*\(\s*('[^']*'|"[^"]*")\s*,\s*('[^']*'|"[^"]*"|\$[\w:]+)`)
	psSpawn    = lazyRE(`(?i)win32_process\b.*\bcreate\b|\bprocess\]::start\s*\(`)
	psQuoted   = lazyRE(`'[^']*'|"[^"]*"`)
)

// psShadowDelete: shadow copies deleted by WMI or CIM.
var psShadowDelete = lazyRE(`(?is)win32_shadowcopy\b.*(remove-(wmiobject|ciminstance)|\brwmi\b|\brcim\b|\.delete\s*\()`)

// psSetEnv: [Environment]::SetEnvironmentVariable('NAME', 'value'), the value when literal.
var psSetEnv = lazyRE("(?i)\\[(?:system\\.)?environment\\]\\s*::\\s*setenvironmentvariable\\s*\\(\\s*['\"]?(\\w+)['\"]?\\s*,\\s*(?:'([^']*)'|\"([^\"$`]*)\")?")

var psCodeCall = lazyRE(`(?i)(?:\[(?:system\.management\.automation\.)?scriptblock\]::create|\.invokescript|\.newscriptblock|\.addscript)\s*\(`)

// psMethod is a static .NET call ([Type]::Name( : m[1] the type) or an
// instance call that runs or changes something.
var psMethod = lazyRE(`(?i)\[([\w.]+)\]::\w+\s*\(|()\.(?:invoke\w*|delete\w*|setvalue|moveto|copyto|create\w*|write\w*|append\w*|start|replace|encrypt|decrypt|setaccesscontrol)\s*\(`)

// psSafeTypes are .NET types whose static calls only compute.
var psSafeTypes = set("io.path", "math", "string", "datetime", "convert", "regex", "guid", "timespan", "text.encoding", "char", "int", "version", "uri", "bitconverter")

// psExpr reads what an expression does to files by .NET calls, and refuses
// one naming a credential store as inline code is.
func (r *reader) psExpr(text string, x *runCtx) {
	r.credCode(text, x.sc.cwds)
	for _, m := range psCodeCall().FindAllStringIndex(text, 8) { // [scriptblock]::Create('…'): code
		end := psMatch(text, m[1]-1)
		l := &psLex{r: r, src: text, x: x}
		if vals, ok := l.literal(text[m[1]:min(end, len(text))]); ok && len(vals) == 1 && r.readable(vals[0]) {
			r.psScript(vals[0].text, &runCtx{sc: x.sc.clone(), layers: x.layers, opaque: true})
		} else {
			r.out.unclear = true
		}
	}
	for _, m := range psMethod().FindAllStringSubmatch(text, 8) {
		if !psSafeTypes[strings.ToLower(strings.TrimPrefix(strings.ToLower(m[1]), "system."))] {
			r.out.unclear = true // a .NET call hub cannot read: [Diagnostics.Process]::Start(…), $sb.Invoke()
		}
	}
	for _, m := range psDotNet().FindAllStringSubmatch(text, 8) {
		a := psPath((&psLex{r: r, src: m[3], x: x}).word().vals[0], r.home)
		argv := []arg{{text: "tee"}, a}
		if strings.HasPrefix(strings.ToLower(m[2]), "delete") {
			argv = []arg{{text: "rm"}, {text: "-r"}, a}
		}
		r.run(argv, &runCtx{sc: x.sc, layers: x.layers, opaque: true})
	}
	for _, m := range psDownload().FindAllStringSubmatch(text, 8) { // WebClient's DownloadFile(URL, FILE): curl -o FILE URL
		url, file := (&psLex{r: r, src: m[1], x: x}).word().vals[0], (&psLex{r: r, src: m[2], x: x}).word().vals[0]
		r.run([]arg{{text: "curl"}, {text: "-o"}, psPath(file, r.home), url}, &runCtx{sc: x.sc, layers: x.layers})
	}
}

// A cmdlet's reading: the program it stands for, then its parameters:
// "Name" a switch, "Name=-x" a switch read as -x, "Name:" a value,
// "Name:+" a value read as an operand, "Name:-o" one read as -o VALUE,
// "Name@" a positional one read as an operand (in order; "Name@-d" as
// -d VALUE, "Name@_" dropped, "Name@/" a child of each operand). Aliases
// of a parameter follow it after /.
var psCmdlets = map[string]string{
	"remove-item":        "rm -r|Path@ LiteralPath:+/PSPath/LP Filter: Include: Exclude: Recurse Force=-f Credential: Stream:",
	"clear-content":      "truncate -s 0|Path@ LiteralPath:+/PSPath/LP Filter: Include: Exclude: Force Credential: Stream:",
	"set-content":        "tee|Path@ Value@_ LiteralPath:+/PSPath/LP PassThru Filter: Include: Exclude: Force Credential: NoNewline Encoding: AsByteStream Stream:",
	"add-content":        "tee -a|Path@ Value@_ LiteralPath:+/PSPath/LP PassThru Filter: Include: Exclude: Force Credential: NoNewline Encoding: AsByteStream Stream:",
	"out-file":           "tee|FilePath@/Path Encoding@_ LiteralPath:+/PSPath/LP Append=-a Force NoClobber/NoOverwrite Width: NoNewline InputObject:",
	"tee-object":         "tee|FilePath@ LiteralPath:+/PSPath/LP Append=-a Variable: InputObject: Encoding:",
	"copy-item":          "cp|Path@ Destination@ LiteralPath:+/PSPath/LP Container Force Filter: Include: Exclude: Recurse=-r PassThru Credential: FromSession: ToSession:",
	"move-item":          "mv|Path@ Destination@ LiteralPath:+/PSPath/LP Force Filter: Include: Exclude: PassThru Credential:",
	"rename-item":        "mv|Path@ NewName@ LiteralPath:+/PSPath/LP Force PassThru Credential:",
	"new-item":           "new-item|Path@ Name: ItemType:/Type Value:/Target Force Credential:",
	"set-item":           "set-item|Path@ Value@_ LiteralPath:+/PSPath/LP Force PassThru Filter: Include: Exclude: Credential:",
	"set-location":       "cd|Path@ LiteralPath:+/PSPath/LP PassThru StackName:",
	"push-location":      "pushd|Path@ LiteralPath:+/PSPath/LP PassThru StackName:",
	"pop-location":       "popd|PassThru StackName:",
	"get-childitem":      "ls|Path@ Filter@_ LiteralPath:+/PSPath/LP Include: Exclude: Recurse=-R/s Depth: Force Name Attributes: FollowSymlink=-L Directory/ad File/af Hidden/ah ReadOnly/ar System/as",
	"get-item":           "ls -d|Path@ LiteralPath:+/PSPath/LP Filter: Include: Exclude: Force Stream: Credential:",
	"get-content":        "cat|Path@ LiteralPath:+/PSPath/LP ReadCount: TotalCount:/First/Head Tail:/Last Filter: Include: Exclude: Force Credential: Delimiter: Wait Raw Encoding: AsByteStream Stream:",
	"write-output":       "echo|InputObject@ NoEnumerate",
	"invoke-expression":  "pwsh -Command|Command@",
	"invoke-webrequest":  "curl|Uri@ OutFile:-o Method: Body: Headers: ContentType: UseBasicParsing UserAgent: TimeoutSec: Credential: Proxy: SessionVariable: WebSession: InFile: PassThru SkipCertificateCheck Authentication: Token: MaximumRedirection: Form: UseDefaultCredentials",
	"invoke-restmethod":  "curl|Uri@ OutFile:-o Method: Body: Headers: ContentType: UseBasicParsing UserAgent: TimeoutSec: Credential: Proxy: SessionVariable: WebSession: InFile: PassThru SkipCertificateCheck Authentication: Token: MaximumRedirection: Form: UseDefaultCredentials",
	"start-bitstransfer": "curl|Source@ Destination@-o Credential: Asynchronous DisplayName: Priority: TransferType:",
	"expand-archive":     "unzip|Path@ DestinationPath@-d LiteralPath:+/PSPath/LP Force PassThru",
	"start-process":      "start-process|FilePath@ ArgumentList@/Args Verb: WorkingDirectory: PassThru Credential: LoadUserProfile NoNewWindow RedirectStandardError:-o RedirectStandardInput: RedirectStandardOutput:-o WindowStyle: Wait UseNewEnvironment Environment:",
	"format-volume":      "mkfs|DriveLetter@",
	"clear-disk":         "mkfs|Number@",
	"initialize-disk":    "mkfs|Number@",
	"remove-partition":   "mkfs|DiskNumber@ PartitionNumber@",
	"stop-computer":      "shutdown|",
	"restart-computer":   "shutdown -r|",

	"remove-physicaldisk": "mkfs|", "reset-physicaldisk": "mkfs|", "remove-virtualdisk": "mkfs|", "remove-storagepool": "mkfs|",
	// a registry value is its key's child: Remove-ItemProperty HKLM:\SYSTEM\X -Name Start is rm /hkey_local_machine/system/x/start
	"remove-itemproperty":   "rm|Path@ Name@/ LiteralPath:+/PSPath/LP Filter: Include: Exclude: Force Credential:",
	"clear-itemproperty":    "truncate -s 0|Path@ Name@/ LiteralPath:+/PSPath/LP Filter: Include: Exclude: Force PassThru Credential:",
	"set-itemproperty":      "touch|Path@ Name@/ Value@_ LiteralPath:+/PSPath/LP Type: PassThru Force Filter: Include: Exclude: Credential: InputObject:",
	"new-itemproperty":      "touch|Path@ Name@/ Value:_ PropertyType:/Type LiteralPath:+/PSPath/LP Force Filter: Include: Exclude: Credential:",
	"set-executionpolicy":   "set-executionpolicy|ExecutionPolicy@ Scope@-scope Force",
	"import-certificate":    "touch|FilePath@_ CertStoreLocation:+",
	"import-pfxcertificate": "touch|FilePath@_ CertStoreLocation:+ Exportable Password: ProtectPrivateKey:",
}

var psAliases = map[string]string{
	"rm": "remove-item", "ri": "remove-item", "rd": "remove-item", "rmdir": "remove-item", "del": "remove-item", "erase": "remove-item",
	"clc": "clear-content", "sc": "set-content", "ac": "add-content", "tee": "tee-object", "cp": "copy-item", "copy": "copy-item",
	"cpi": "copy-item", "mv": "move-item", "move": "move-item", "mi": "move-item", "ren": "rename-item", "rni": "rename-item",
	"ni": "new-item", "si": "set-item", "md": "new-item", "mkdir": "new-item", "cd": "set-location", "chdir": "set-location", "sl": "set-location",
	"pushd": "push-location", "popd": "pop-location", "gci": "get-childitem", "ls": "get-childitem", "dir": "get-childitem",
	"gi": "get-item", "gc": "get-content", "cat": "get-content", "type": "get-content", "echo": "write-output", "write": "write-output",
	"iex": "invoke-expression", "iwr": "invoke-webrequest", "curl": "invoke-webrequest", "wget": "invoke-webrequest",
	"irm": "invoke-restmethod", "saps": "start-process", "start": "start-process", "rp": "remove-itemproperty", "clp": "clear-itemproperty",
	"sp": "set-itemproperty",
}

// psRunners are the cmdlets that run code they are given: an "always" for
// one covers only itself.
var psRunners = set("invoke-expression", "start-process", "invoke-command", "icm", "foreach-object", "%", "foreach",
	"where-object", "?", "where", "start-job", "sajb", "start-threadjob", "invoke-item", "ii", "new-item")

// psProgram is the program a cmdlet or alias reads as ("" for none).
func psProgram(word string) string {
	prog, _, _ := strings.Cut(psCmdlets[psCmdletName(arg{text: word})], " ")
	prog, _, _ = strings.Cut(prog, "|")
	return prog
}

// psCommon are the parameters every cmdlet takes.
const psCommon = " Verbose/vb Debug/db ErrorAction:/ea WarningAction:/wa InformationAction:/infa ProgressAction:/proga ErrorVariable:/ev WarningVariable:/wv InformationVariable:/iv OutVariable:/ov OutBuffer:/ob PipelineVariable:/pv WhatIf/wi Confirm/cf UseTransaction/usetx"

type psParam struct {
	names []string // the name, then its aliases (lower case)
	kind  byte     // 0 a switch, ':' a named value, '@' a positional one
	flag  string   // the program's flag it is read as; "+" an operand, "_" dropped
}

func psParams(spec string) []psParam {
	var ps []psParam
	for _, f := range strings.Fields(spec + psCommon) {
		names := strings.Split(strings.Replace(strings.ToLower(f), "@/", "@\x00", 1), "/") // Name@/ is no alias ""
		p := psParam{names: names}
		if i := strings.IndexAny(names[0], "=:@"); i >= 0 {
			p.kind, p.flag, p.names[0] = names[0][i], strings.ReplaceAll(names[0][i+1:], "\x00", "/"), names[0][:i]
			if p.kind == '=' {
				p.kind = 0
			}
		}
		if p.kind == '@' && p.flag == "" {
			p.flag = "+"
		}
		ps = append(ps, p)
	}
	return ps
}

// psParamOf is the parameter -name names: an exact name or alias, else
// the one it is a unique prefix of; nil when none or several.
func psParamOf(ps []psParam, name string) *psParam {
	var found *psParam
	for i := range ps {
		if slices.Contains(ps[i].names, name) {
			return &ps[i]
		}
		if strings.HasPrefix(ps[i].names[0], name) {
			if found != nil {
				return nil
			}
			found = &ps[i]
		}
	}
	return found
}

// psCmdlet reads a cmdlet as its program; an unknown parameter is passed on
// (PowerShell would refuse it: the program's flag refuses no less).
func (r *reader) psCmdlet(spec string, words []psWord, x *runCtx) input {
	prog, params, _ := strings.Cut(spec, "|")
	ps := psParams(params)
	argv := []arg{}
	for _, p := range strings.Fields(prog) {
		argv = append(argv, arg{text: p})
	}
	named := map[string][]arg{}
	var ops []arg
	unknownParam, extra := false, false
	for i := 0; i < len(words); i++ {
		w := words[i]
		var p *psParam
		var val []arg
		if t := w.vals[0].text; w.bare && len(w.vals) == 1 && len(t) > 1 && t[0] == '-' && !psNumber(t[1:]) {
			name, v, colon := strings.Cut(strings.ToLower(t[1:]), ":")
			if p = psParamOf(ps, name); p == nil {
				argv = append(argv, w.vals[0])
				unknownParam = true
				continue
			}
			if colon {
				val = []arg{{text: v}}
			} else if p.kind != 0 && i+1 < len(words) {
				i++
				val = words[i].vals
			}
		} else {
			val = w.vals
			if j := slices.IndexFunc(ps, func(q psParam) bool { return q.kind == '@' && named[q.names[0]] == nil }); j >= 0 {
				p = &ps[j]
			} else {
				ops = append(ops, val...) // more than it takes: read as operands
				extra = true
				continue
			}
		}
		named[p.names[0]] = append(named[p.names[0]], val...)
		switch {
		case p.kind == 0 && p.flag != "":
			argv = append(argv, arg{text: p.flag})
		case p.flag == "+":
			ops = append(ops, val...)
		case p.flag != "" && p.flag != "_" && p.flag != "/":
			for _, v := range val {
				argv = append(argv, arg{text: p.flag}, psPath(v, r.home))
			}
		}
	}
	if extra && !unknownParam && argv[0].text != "echo" && argv[0].text != "pwsh" && slices.ContainsFunc(ops, func(a arg) bool { return cmdSwitch().MatchString(a.text) }) {
		return r.run(nil, x) // rd /s /q x: PowerShell binds no such call and runs nothing of it
	}
	for i := range ops {
		ops[i] = psPath(ops[i], r.home)
	}
	for _, p := range ps {
		if kids := named[p.names[0]]; p.flag == "/" && len(kids) > 0 { // Name@/: each a child of each operand
			var in []arg
			for _, o := range ops {
				for _, c := range kids {
					in = append(in, arg{text: o.text + "/" + c.text, dynamic: o.dynamic || c.dynamic, glob: o.glob || strings.ContainsAny(c.text, "*?[")})
				}
			}
			ops = in
		}
	}
	if p, v := append(named["path"], named["literalpath"]...), named["value"]; len(p) > 0 && len(v) > 0 { // Set-Item Env:EDITOR '…'
		if env, ok := strings.CutPrefix(strings.ToLower(p[0].text), "env:"); ok && strings.Trim(env, `\/`) != "" {
			r.winSetEnv(strings.Trim(env, `\/`), v[0], x)
		} else if n := named["name"]; ok && len(n) > 0 { // New-Item -Path Env: -Name EDITOR -Value '…'
			r.winSetEnv(n[0].text, v[0], x)
		}
	}
	switch argv[0].text {
	case "new-item":
		argv, ops = r.psNewItem(named)
	case "start-process":
		return r.psStart(named, argv[1:], x)
	case "rm", "truncate", "tee":
		if len(ops) == 0 && x.stdin.kind != inNone { // the files piped in (gci ~\.ssh | Clear-Content)
			argv = append([]arg{{text: "xargs"}}, argv...)
		}
	case "cp", "mv":
		if named["path"] == nil && named["literalpath"] == nil && len(ops) == 1 && x.stdin.kind != inNone { // gci ~ | Move-Item -Destination X
			argv, ops = append(append([]arg{{text: "xargs"}}, argv...), arg{text: "-t"}, ops[0]), nil
		}
	case "pwsh":
		ops = []arg{joinArgs(ops)}
		if len(words) == 0 {
			ops[0] = arg{text: "-"}
		}
	}
	if argv[0].text != "echo" && argv[0].text != "pwsh" && len(ops) > 0 && !strings.HasPrefix(ops[0].text, "-") {
		argv = append(argv, arg{text: "--"})
	}
	return r.run(append(argv, ops...), x)
}

// psNewItem reads New-Item by its -ItemType (any prefix of a type).
func (r *reader) psNewItem(named map[string][]arg) (argv, ops []arg) {
	paths, n := named["path"], named["name"]
	if len(paths) == 0 && len(n) > 0 {
		paths = []arg{{text: "."}}
	}
	for i := range paths {
		if len(n) > 0 {
			paths[i].text = path.Join(paths[i].text, n[0].text)
			paths[i].dynamic = paths[i].dynamic || n[0].dynamic
		}
		paths[i] = psPath(paths[i], r.home)
	}
	typ := strings.ToLower(joinArgs(named["itemtype"]).text)
	target := named["value"]
	for i := range target {
		target[i] = psPath(target[i], r.home)
	}
	switch {
	case typ == "": // a prefix of every type: a file
	case strings.HasPrefix("symboliclink", typ), strings.HasPrefix("junction", typ):
		return []arg{{text: "ln"}, {text: "-s"}}, append(target, paths...)
	case strings.HasPrefix("hardlink", typ):
		return []arg{{text: "ln"}}, append(target, paths...)
	case strings.HasPrefix("directory", typ):
		return []arg{{text: "mkdir"}, {text: "-p"}}, paths
	}
	return []arg{{text: "tee"}}, paths
}

// psStart reads Start-Process: its program and argument list, output to
// the files it names.
func (r *reader) psStart(named map[string][]arg, outs []arg, x *runCtx) input {
	prog := named["filepath"]
	if len(prog) == 0 {
		return r.run(nil, x)
	}
	argv := []arg{psPath(prog[0], r.home)}
	for _, a := range named["argumentlist"] {
		if a.dynamic {
			argv = append(argv, a)
			continue
		}
		for _, f := range winWords(a.text) {
			if f := (arg{text: f}); winShell(argv[0]) {
				argv = append(argv, f) // code: the shell reads it
			} else {
				argv = append(argv, psPath(f, r.home))
			}
		}
	}
	for i := 1; i < len(outs); i += 2 {
		x.redirs = append(x.redirs, redir{op: syntax.RdrOut, target: outs[i]})
	}
	x.opaque = true
	return r.run(argv, x)
}

// winWords splits a Windows command line at spaces outside double quotes.
func winWords(s string) []string {
	var out []string
	var b strings.Builder
	quoted, has := false, false
	for _, c := range s {
		switch {
		case c == '"':
			quoted, has = !quoted, true
		case (c == ' ' || c == '\t') && !quoted:
			if has {
				out = append(out, b.String())
			}
			b.Reset()
			has = false
		default:
			b.WriteRune(c)
			has = true
		}
	}
	if has {
		out = append(out, b.String())
	}
	return out
}

// psExeParams are pwsh's parameters with the shortest prefix each accepts,
// in the order PowerShell tries them; those marked : take a value.
var psExeParams = []struct{ name, min string }{
	{"commandwithargs", "commandw"}, {"cwa", "cwa"}, {"command", "c"}, {"encodedcommand", "e"}, {"ec", "ec"}, {"encodedarguments:", "encodeda"}, {"ea:", "ea"}, {"file", "f"},
	{"executionpolicy:", "ex"}, {"ep:", "ep"}, {"noprofile", "nop"}, {"noninteractive", "noni"}, {"nologo", "nol"},
	{"noexit", "noe"}, {"windowstyle:", "w"}, {"workingdirectory:", "wo"}, {"wd:", "wd"}, {"inputformat:", "in"},
	{"if:", "if"}, {"outputformat:", "o"}, {"of:", "of"}, {"version:", "v"}, {"login", "l"}, {"configurationname:", "config"},
	{"configurationfile:", "configurationf"}, {"custompipename:", "cus"}, {"settingsfile:", "settings"}, {"sta", "sta"},
	{"mta", "mta"}, {"psconsolefile:", "psc"}, {"interactive", "i"}, {"help", "h"}, {"?", "?"}, {"noprofileloadtime", "noprofilel"},
}

// pwshExe reads pwsh: -Command's words joined (- is stdin), -EncodedCommand
// decoded, -File's script; the first word no parameter names starts the code.
func (r *reader) pwshExe(argv []arg, x *runCtx) input {
	r.interp(argv, x) // inline code naming a credential store, as for any interpreter
	args := slices.Clone(argv[1:])
	for i := 0; i < len(args); i++ {
		if args[i].dynamic {
			r.out.unclear = true
			return r.final(argv, x)
		}
		t := args[i].text
		if d := psDashes.Replace(t); strings.HasPrefix(d, "-") {
			t = d // pwsh –c, —enc
		}
		if t == "-" {
			return r.psStdin(argv, x)
		}
		n, v, colon := strings.Cut(strings.TrimLeft(t, "-/"), ":")
		name := strings.ToLower(n)
		if name == "" || t[0] != '-' && t[0] != '/' {
			return r.psRun(joinArgs(args[i:]), argv, x)
		}
		opt := ""
		for _, p := range psExeParams {
			if n := strings.TrimSuffix(p.name, ":"); strings.HasPrefix(n, name) && strings.HasPrefix(name, p.min) {
				opt = p.name
				break
			}
		}
		if colon && opt != "" { // -enc:BASE64, -c:CODE: the value in the same word
			args = slices.Insert(args, i+1, arg{text: v})
		}
		inline := opt == "command" || opt == "commandwithargs" || opt == "cwa"
		if (inline || opt == "file") && i+1 < len(args) && args[i+1].text == "-" {
			return r.psStdin(argv, x) // -Command -, -File -: the code on stdin
		}
		switch {
		case opt == "workingdirectory:" || opt == "wd:":
			if i+1 < len(args) {
				x.sc = x.sc.clone()
				r.cd("cd", []arg{{text: "--"}, psPath(args[i+1], r.home)}, x.sc)
			}
			i++
		case inline: // -CommandWithArgs: its arguments read as words of the code
			code := joinArgs(args[i+1:])
			if lit := psLiterals(args[i+1:]); lit.text != code.text {
				if opt == "command" { // pwsh joins -Command's words: a home "C:\Users\A B" splits in two
					r.psRun(code, argv, x)
				}
				code = lit // -CommandWithArgs's words after the code are values ($args); -Command's read so too
			}
			return r.psRun(code, argv, x)
		case opt == "encodedcommand" || opt == "ec":
			if i+1 >= len(args) {
				return r.final(argv, x)
			}
			code, ok := psDecode(args[i+1].text)
			if !ok {
				r.out.unclear = true
				return r.final(argv, x)
			}
			r.credCode(code, x.sc.cwds)
			return r.psRun(arg{text: code}, argv, x)
		case opt == "file":
			return r.final(argv, x) // a script file
		case opt == "":
			return r.psRun(joinArgs(args[i:]), argv, x) // not a parameter: the command starts here
		case strings.HasSuffix(opt, ":"):
			i++
		}
	}
	return r.psStdin(argv, x)
}

// psLiterals joins pwsh's code word and the words after it, quoting those
// PowerShell would split or end at as one value each.
func psLiterals(words []arg) arg {
	out := slices.Clone(words)
	for i := 1; i < len(out); i++ {
		if strings.ContainsAny(out[i].text, " \t\n,;|&'\"") {
			out[i].text = "'" + strings.ReplaceAll(out[i].text, "'", "''") + "'"
		}
	}
	return joinArgs(out)
}

func (r *reader) psRun(code arg, argv []arg, x *runCtx) input {
	if code.text == "" && !code.dynamic {
		return r.psStdin(argv, x)
	}
	if r.readable(code) {
		sc := x.sc.clone()
		sc.layer, sc.opq = x.layers, x.opaque
		r.psScript(code.text, &runCtx{sc: sc, stdin: x.stdin, layers: x.layers, opaque: x.opaque})
	}
	return input{kind: inUnknown}
}

func (r *reader) psStdin(argv []arg, x *runCtx) input {
	return r.fromStdin(argv, x, func(s string) input {
		r.psRun(arg{text: s}, argv, x)
		return input{kind: inUnknown}
	})
}

// psDecode decodes -EncodedCommand: base64 of UTF-16LE.
func psDecode(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
			return "", false
		}
	}
	if len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}
