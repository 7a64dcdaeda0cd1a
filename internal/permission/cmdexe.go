package permission

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The cmd.exe reader: a line cmd /c runs, read into the calls the sh reader
// makes, the builtins as the programs they stand for (cmdBuiltins).

// cmdBuiltins: a builtin and what it reads as, its switches mapped ("s=-r":
// /S read as -r); other switches are dropped.
var cmdBuiltins = map[string]string{
	"rd": "rm|s=-r", "rmdir": "rm|s=-r", "del": "rm -r|", "erase": "rm -r|", "copy": "cp|", "xcopy": "cp -r|",
	"move": "mv|", "ren": "mv|", "rename": "mv|", "type": "cat|", "format": "mkfs|", "cd": "cd|", "chdir": "cd|",
	"pushd": "pushd|", "popd": "popd|", "robocopy": "rsync -r|mir=--delete purge=--delete mov=--remove-source-files move=--remove-source-files",
	"mklink": "ln -s|h=-h", "dir": "ls|", "icacls": "chmod 0|t=-R", "takeown": "chown x|r=-R",
}

// winExes are the cmdBuiltins that are programs, whichever shell runs them.
var winExes = set("robocopy", "xcopy", "format", "icacls", "takeown")

func (r *reader) cmdScript(src string, x *runCtx) input {
	if r.depth >= maxDepth {
		r.out.unclear = true
		return input{kind: inUnknown}
	}
	r.depth++
	defer func() { r.depth-- }()
	if sets := cmdSet().FindAllStringSubmatch(src, 8); len(sets) > 0 && x.sc.vars["cmd:late"].text == "" {
		late := src // call %X% and !X! expand again after set X=… ran: read the line with their values too
		for _, m := range sets {
			late = regexp.MustCompile(`(?i)[%!]`+regexp.QuoteMeta(m[1])+`[%!]`).ReplaceAllLiteralString(late, m[2])
		}
		y := x.fork()
		y.sc.vars["cmd:late"] = arg{text: "1"}
		r.cmdScript(late, y)
	}
	src = r.cmdExpand(src, x.sc)
	var words []arg
	var redirs []redir
	in, out := x.stdin, input{kind: inUnknown}
	end := func(pipe bool) {
		if r.steps++; r.steps > maxSteps {
			r.out.unclear = true
		} else if len(words) > 0 || len(redirs) > 0 {
			y := &runCtx{sc: x.sc, stdin: in, redirs: redirs, layers: x.layers, opaque: x.opaque}
			out = r.cmdCommand(words, y)
		}
		words, redirs, in = nil, nil, x.stdin
		if pipe {
			in = out
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == ',' || c == ';' || c == '=' && len(words) == 0: // =rd: = before a command is a blank too
			i++
		case c == '&' || c == '\n' || c == '\r' || c == '(' && len(words) == 0 || c == ')':
			i++
			if strings.HasPrefix(src[i:], "&") {
				i++
			}
			end(false)
		case c == '|':
			i++
			pipe := !strings.HasPrefix(src[i:], "|")
			if !pipe {
				i++
			}
			end(pipe)
		case c == '>' || c == '<' || strings.ContainsRune("0123456789", rune(c)) && i+1 < len(src) && src[i+1] == '>':
			op, n := psRedir(src[i:])
			if c == '<' {
				op, n = 0, 1
			}
			var t arg
			t, i = cmdWord(src, skipBlanks(src, i+n))
			if op != 0 {
				redirs = append(redirs, redir{op: op, target: psPath(t, r.home)})
			}
		case c == '(': // a block after if's condition, for's set: one word
			j := min(psMatch(strings.ReplaceAll(src, "`", "'"), i), len(src)-1) // ` escapes nothing in cmd: (`cmd`) of for /f
			words, i = append(words, arg{text: src[i : j+1]}), j+1
		default:
			end := len(src)
			if k := strings.IndexAny(src[i:], "/: \t\"&|<>()"); len(words) == 0 && k > 0 && src[i+k] == '/' {
				end = i + k // cmd/c, rd/s/q: a / ends a command's name
			}
			var w arg
			w, i = cmdWord(src[:end], i)
			words = append(words, w)
		}
	}
	end(false)
	return out
}

var cmdSet = lazyRE(`(?i)\bset\s+"?(\w+)=([^&|"\r\n]*)`)

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// cmdWord reads one word at i; \x00 marks a variable hub does not know.
func cmdWord(s string, i int) (arg, int) {
	var a arg
	quoted := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 1 && i+1 < len(s): // a character of a variable's value
			i++
			c = s[i]
		case c == '"':
			quoted = !quoted
			continue
		case quoted:
		case c == '^' && i+1 < len(s):
			i++
			c = s[i]
		case strings.ContainsRune(" \t,;&|<>()\r\n", rune(c)):
			return a, i
		case c == '*' || c == '?':
			a.glob = true
		}
		if c == 0 {
			a.dynamic = true
		}
		a.text += string([]byte{c})
	}
	return a, i
}

// cmdExpand expands %VAR% as cmd does before it reads a line.
func (r *reader) cmdExpand(src string, sc *scope) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '%' && c != '!' { // !X!: delayed expansion (cmd /v:on)
			b.WriteByte(c)
			continue
		}
		j := strings.IndexAny(src[i+1:], string(c)+"\n")
		switch {
		case c == '%' && i+1 < len(src) && (src[i+1] == '~' || src[i+1] >= '0' && src[i+1] <= '9' || src[i+1] == '*'): // %~dp0, %1: arguments
			b.WriteByte(0)
			i++
		case j < 0 || src[i+1+j] == '\n' || strings.ContainsAny(src[i+1:i+1+j], " \t&|<>\""): // not a variable: %i of for
			b.WriteByte(c)
		case j == 0:
			b.WriteByte(c)
			i++
		default:
			name, edit, _ := strings.Cut(src[i+1:i+1+j], ":")
			v := cmdEdit(r.winVar(name, sc), edit)
			if v.dynamic {
				b.WriteByte(0)
			} else {
				for _, c := range []byte(strings.ReplaceAll(v.text, "/", `\`)) { // one word, whatever it holds
					b.WriteByte(1)
					b.WriteByte(c)
				}
			}
			i += j + 1
		}
	}
	return b.String()
}

// cmdEdit is %X:~START[,LEN]% or %X:OLD=NEW% (any letter case) of v;
// unknown for any other edit.
func cmdEdit(v arg, edit string) arg {
	if edit == "" || v.dynamic {
		return v
	}
	if old, repl, ok := strings.Cut(edit, "="); ok && old != "" && !strings.HasPrefix(old, "*") {
		v.text = regexp.MustCompile(`(?i)`+regexp.QuoteMeta(old)).ReplaceAllLiteralString(v.text, repl)
		return v
	}
	var start, n int
	if k, err := fmt.Sscanf(strings.TrimPrefix(edit, "~"), "%d,%d", &start, &n); !strings.HasPrefix(edit, "~") || k == 0 && err != nil {
		return unknown
	} else if k == 1 {
		n = len(v.text)
	}
	l := len(v.text)
	if start < 0 {
		start = max(l+start, 0)
	}
	end := min(start+n, l)
	if n < 0 {
		end = l + n
	}
	v.text = v.text[min(start, l):max(end, min(start, l))]
	return v
}

func (r *reader) cmdCommand(words []arg, x *runCtx) input {
	if len(words) == 0 {
		return r.run(nil, x)
	}
	if block, ok := strings.CutPrefix(words[0].text, "("); ok {
		r.cmdScript(strings.TrimSuffix(block, ")"), x)
		return input{kind: inUnknown}
	}
	name := strings.ToLower(strings.TrimLeft(words[0].text, "@"))
	if b, sw, ok := strings.Cut(name, "/"); ok && cmdBuiltins[b] != "" { // rd/s/q: a builtin's name ends at a /
		words = append([]arg{{text: b}, {text: "/" + sw}}, words[1:]...)
		name = b
	}
	rest := words[1:]
	if k, v, ok := strings.Cut(strings.Trim(joinArgs(rest).text, `"`), "="); name == "set" && ok && !strings.HasPrefix(k, "/") {
		r.winSetEnv(k, arg{text: v, dynamic: joinArgs(rest).dynamic}, x) // set GIT_PAGER=…
	}
	switch name {
	case "rem", "::", "set", "echo.", "goto", "exit", "setlocal", "endlocal":
		return r.run(nil, x)
	case "call":
		return r.cmdCommand(rest, x)
	case "start": // start ["title"] [/switches] program …
		for len(rest) > 0 && (strings.HasPrefix(rest[0].text, "/") || rest[0].text == "") {
			rest = rest[1:]
		}
		return r.cmdCommand(rest, x)
	case "if": // both branches
		body := cmdIfBody(rest)
		for i, a := range body {
			if strings.EqualFold(a.text, "else") {
				r.cmdCommand(body[i+1:], x.fork())
				body = body[:i]
				break
			}
		}
		return r.cmdCommand(body, x)
	case "for":
		return r.cmdFor(rest, x)
	}
	spec, ok := cmdBuiltins[name]
	if exe := progName(words[0].text); !ok && winExes[exe] {
		spec, ok = cmdBuiltins[exe], true // C:\Windows\System32\robocopy.exe, format.com
	}
	if !ok {
		for i := range rest {
			if !winShell(words[0]) && !strings.HasPrefix(rest[i].text, "/") {
				rest[i] = winPath(rest[i])
			}
		}
		return r.run(append([]arg{words[0]}, rest...), x)
	}
	prog, switches, _ := strings.Cut(spec, "|")
	var argv, ops []arg
	for _, p := range strings.Fields(prog) {
		argv = append(argv, arg{text: p})
	}
	hard := false
	for _, w := range rest {
		if !strings.HasPrefix(w.text, "/") || len(w.text) < 2 || w.text == r.home || strings.HasPrefix(w.text, r.home+"/") { // a home like /home/me is no switch
			ops = append(ops, winPath(w))
			continue
		}
		for _, s := range strings.Split(strings.ToLower(w.text[1:]), "/") { // /s/q
			for _, m := range strings.Fields(switches) {
				if k, flag, _ := strings.Cut(m, "="); k == s {
					argv = append(argv, arg{text: flag})
					hard = hard || flag == "-h"
				}
			}
		}
	}
	if prog == "cd" && len(ops) == 0 { // cd alone shows the directory
		return r.run(nil, x)
	}
	if name == "mklink" && len(ops) == 2 { // mklink [/d|/h|/j] LINK TARGET
		ops[0], ops[1] = ops[1], ops[0]
		if hard {
			argv = []arg{{text: "ln"}}
		}
	}
	if argv[0].text == "rsync" && len(ops) > 2 { // robocopy SRC DEST FILE…: DEST last, as rsync's
		ops = append(append([]arg{ops[0]}, ops[2:]...), ops[1])
	}
	if len(ops) > 0 {
		argv = append(argv, arg{text: "--"})
	}
	return r.run(append(argv, ops...), x)
}

// cmdFor reads for [/d | /r DIR | /l | /f "…"] %i in (SET) do COMMAND: once
// per word of SET; for /f ('cmd') cmd runs too, its lines unknown items.
func (r *reader) cmdFor(rest []arg, x *runCtx) input {
	in := slices.IndexFunc(rest, func(a arg) bool { return strings.EqualFold(a.text, "in") })
	do := slices.IndexFunc(rest, func(a arg) bool { return strings.EqualFold(a.text, "do") })
	if in < 1 || do < in+2 {
		return r.run(nil, x)
	}
	loop, set := rest[in-1].text, strings.TrimSuffix(strings.TrimPrefix(rest[in+1].text, "("), ")")
	flag := func(f string) int {
		return slices.IndexFunc(rest[:in], func(a arg) bool { return strings.EqualFold(a.text, f) })
	}
	items := []arg{unknown}
	switch {
	case flag("/f") >= 0 && len(set) > 1 && strings.ContainsRune("'`", rune(set[0])):
		r.cmdScript(strings.Trim(set, "'`"), x.fork())
	case flag("/f") < 0 && flag("/l") < 0:
		items = nil
		for _, f := range strings.Fields(set) {
			item, _ := cmdWord(f, 0)
			if i := flag("/r"); i >= 0 && i+1 < in-1 {
				item.text = rest[i+1].text + "/" + item.text
			}
			items = append(items, winPath(item))
		}
	}
	for _, item := range items {
		body := slices.Clone(rest[do+1:])
		for j, w := range body {
			switch {
			case strings.Contains(w.text, loop) && !item.dynamic:
				body[j] = arg{text: strings.ReplaceAll(w.text, loop, item.text), glob: w.glob || item.glob}
			case strings.Contains(w.text, loop), strings.HasPrefix(w.text, "%"):
				body[j] = arg{text: "\x00", dynamic: true}
			}
		}
		r.cmdCommand(body, x.fork())
	}
	return input{kind: inUnknown}
}

// cmdIfBody is the command of if [/i] [not] CONDITION COMMAND.
func cmdIfBody(w []arg) []arg {
	for len(w) > 0 && (strings.EqualFold(w[0].text, "/i") || strings.EqualFold(w[0].text, "not")) {
		w = w[1:]
	}
	n := 1 // A==B
	if len(w) > 0 {
		switch strings.ToLower(w[0].text) {
		case "exist", "defined", "errorlevel", "cmdextversion":
			n = 2
		}
	}
	if len(w) > 1 && strings.Contains("equneqlssleqgtrgeq==", strings.ToLower(w[1].text)) {
		n = 3
	}
	if n > len(w) {
		return nil
	}
	return w[n:]
}

// cmdExe reads cmd /c LINE (or /k, /r); with no line, the commands on stdin.
func (r *reader) cmdExe(argv []arg, x *runCtx) input {
	for i, a := range argv[1:] {
		t := strings.ToLower(a.text)
		if a.dynamic {
			r.out.unclear = true
			break
		}
		if t == "/c" || t == "/k" || t == "/r" || strings.HasPrefix(t, "/c") && !strings.HasPrefix(t, "/c:") {
			rest := argv[2+i:]
			if len(t) > 2 { // /cLINE
				rest = append([]arg{{text: a.text[2:]}}, rest...)
			}
			line := cmdJoin(rest)
			line.text = firstLine(line.text)
			if r.readable(line) {
				if s := line.text; strings.HasPrefix(s, `"`) && strings.Count(s, `"`) >= 2 { // cmd drops the outer quotes
					stripped := s[1:strings.LastIndexByte(s, '"')] + s[strings.LastIndexByte(s, '"')+1:]
					r.cmdScript(stripped, x.fork())
				}
				r.cmdScript(line.text, x.fork())
			}
			return input{kind: inUnknown}
		}
		if !strings.HasPrefix(t, "/") {
			break
		}
	}
	return r.fromStdin(argv, x, func(s string) input { return r.cmdScript(s, x) })
}

// wsl reads wsl.exe: its command line run by Linux's shell, or the argv
// after -e run as it is.
func (r *reader) wsl(argv []arg, x *runCtx) input {
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		switch t := strings.ToLower(args[i].text); {
		case args[i].dynamic:
			r.out.unclear = true
			return r.final(argv, x)
		case t == "-e" || t == "--exec":
			return r.run(args[i+1:], x)
		case t == "--":
			return r.nested(cmdJoin(args[i+1:]), x, nil)
		case t == "--cd" && i+1 < len(args):
			x.sc = x.sc.clone()
			r.cd("cd", []arg{{text: "--"}, psPath(args[i+1], r.home)}, x.sc)
			i++
		case slices.Contains([]string{"-d", "--distribution", "-u", "--user", "--shell-type", "--distribution-id"}, t):
			i++
		case t == "--system":
		case strings.HasPrefix(t, "-"):
			return r.final(argv, x) // --list, --shutdown, …: no command
		default:
			return r.nested(cmdJoin(args[i:]), x, nil)
		}
	}
	return r.shell([]arg{{text: "sh"}}, x) // a shell reading stdin
}

// winLater reads wmic process call create LINE and schtasks /create /tr LINE.
func (r *reader) winLater(argv []arg, x *runCtx) input {
	for i := 1; i+1 < len(argv); i++ {
		if t := strings.ToLower(argv[i].text); t == "create" || t == "/tr" || t == "-tr" {
			if r.readable(argv[i+1]) {
				r.cmdScript(argv[i+1].text, &runCtx{sc: x.sc.clone(), layers: x.layers, opaque: true})
			}
		}
	}
	return r.final(argv, x)
}

// firstLine is what cmd /c runs of a line: up to its first line break.
func firstLine(s string) string {
	j := strings.IndexAny(s, "\r\n")
	switch {
	case j < 0:
		return s
	case j > 0 && s[j-1] == '^': // rd /s /q ^<newline>%USERPROFILE%: the line goes on
		return s[:j-1] + firstLine(strings.TrimPrefix(strings.TrimPrefix(s[j:], "\r"), "\n"))
	}
	return s[:j]
}

// cmdJoin joins words into a command line, quoting those with a blank , ;
// or = (a word that may be a path stays one: whole, it refuses no less).
func cmdJoin(args []arg) arg {
	q := make([]arg, len(args))
	for i, a := range args {
		q[i] = a
		if strings.ContainsAny(a.text, " \t,;=") && !strings.Contains(a.text, `"`) && len(args) > 1 {
			q[i].text = `"` + a.text + `"`
		}
	}
	return joinArgs(q)
}
