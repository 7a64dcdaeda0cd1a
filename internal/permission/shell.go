package permission

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The shell reader: one reading of a command line, shared by the hard deny list, the rules'
// command matching and the "always" scopes. It walks every command the line can run, expands
// what is static and unwraps programs that run another (sudo, env, xargs, find -exec, …).
// What it cannot know before the shell runs is dynamic; a program it cannot know makes the
// line unclear.

// arg is one expanded word.
type arg struct {
	text     string
	dynamic  bool // its value is only known when the shell runs
	glob     bool // holds unquoted pattern characters
	download bool // carries the output of a download
	under    bool // stands for the files under text (find's {}, xargs fed by find)
	subst    bool // comes from a command substitution
	maybe    bool // dynamic, but text is one of its values (${X:-/})
	onDisk   bool // already resolved through the links on disk (check.onDisk)
	lands    bool // a copied file's name in the destination directory (cp -r x/hooks .)
}

type redir struct {
	op     syntax.RedirOperator
	target arg
}

// call is one simple command as it runs, its wrappers stripped.
type call struct {
	argv   []arg      // program first; empty for a bare redirection
	layers [][]string // the argv of every wrapper layer, outermost first
	opaque bool       // a stripped layer changes who or what runs (sudo, xargs, VAR=x, …)
	redirs []redir
	cwds   []string // the directories it may run in; nil when unknown
	stdin  input
}

func (c *call) prog() string {
	if len(c.argv) == 0 || c.argv[0].dynamic {
		return ""
	}
	return progName(c.argv[0].text)
}

// progName is the program a command word runs, also by a Windows path (C:\x\RM.EXE is rm)
// or a package's shim (npm.cmd, npm.ps1 are npm).
func progName(s string) string {
	name := strings.ToLower(path.Base(strings.ReplaceAll(s, `\`, "/")))
	if ext := path.Ext(name); winExts[ext] && len(name) > len(ext) {
		return strings.TrimSuffix(name, ext)
	}
	return name
}

var winExts = set(".exe", ".com", ".cmd", ".bat", ".ps1")

type input struct {
	kind  inputKind
	text  string // inText
	files []arg  // inFiles: the names find or ls print; inFile: the file
	dl    bool   // carries a download
}

type inputKind int

const (
	inNone    inputKind = iota // the terminal, or nothing hub can see
	inText                     // known text
	inFile                     // a file (a < redirect)
	inFiles                    // file names under known roots
	inUnknown                  // the output of a command hub cannot predict
)

type reading struct {
	calls   []*call
	unclear bool     // a program hub cannot know, or a line it cannot parse
	ends    []string // the directories the line may leave the shell in; nil when unknown
	deny    string   // a verdict found while walking (fork bomb, downloaded code)
	must    string   // why it is asked every time, whatever allows it
	alone   bool     // a verdict read a file another command of the line may change
	fills   []string // directories filled with files hub cannot name (an archive's, a copied directory's), and where copies land
	repos   []string // the git directories (common) git commands of the line use, the packages whose scripts it runs
	hooks   []string // the hooks they run: path, executable bit and digest of each; the scripts' file and digest
}

type reader struct {
	out        *reading
	home       string
	depth      int
	steps      int
	funcs      map[string]*syntax.Stmt
	called     map[string]bool
	active     map[string]bool
	downloaded map[string]bool // base names of the files a download wrote
	substOut   map[*syntax.CmdSubst]string
	gitAliases map[string]string
	gitConfs   map[string][]gitKV // a repository's config by its git directory, "~" the user's
	aliases    map[string]string
	unpacked   bool              // a downloaded archive was unpacked: its files are downloaded code
	links      map[string]string // symlinks made earlier on the line: path -> target
	progRead   []progFile        // files read for the programs they name (written.go)
	progWrote  []progFile        // what the line writes
}

// scope is the shell state a command sees; subshells get a copy.
type scope struct {
	cwds  []string // nil: unknown
	vars  map[string]arg
	pos   []arg // $0, $1, …; nil: unknown
	cond  bool  // inside a branch: a cd may or may not happen
	layer [][]string
	opq   bool
}

func (s *scope) clone() *scope {
	c := *s
	c.cwds = slices.Clone(s.cwds) // nil stays nil: unknown
	c.vars = maps.Clone(s.vars)   // never nil: every scope starts with HOME
	return &c
}

const (
	maxDepth = 8
	maxSteps = 4000
	maxWords = 256
)

func newReader() (*reader, *scope) {
	r := &reader{out: &reading{}, home: homeDir(), funcs: map[string]*syntax.Stmt{}, called: map[string]bool{}, active: map[string]bool{},
		downloaded: map[string]bool{}, substOut: map[*syntax.CmdSubst]string{}, gitAliases: map[string]string{}, gitConfs: map[string][]gitKV{}, aliases: map[string]string{}, links: map[string]string{}}
	return r, &scope{vars: map[string]arg{"HOME": {text: r.home}}}
}

// readLine reads a command line run in one of dirs (none: unknown).
func readLine(src string, dirs []string) *reading {
	return readAs(src, dirs, func(r *reader, sc *scope) {
		sc.cond = true // a cd may fail: the shell stays where it was
		r.script(src, sc, input{})
	})
}

func readAs(src string, dirs []string, read func(*reader, *scope)) *reading {
	r, sc := newReader()
	for _, d := range dirs {
		if d != "" {
			sc.cwds = append(sc.cwds, path.Clean(toSlash(d)))
		}
	}
	if len(sc.cwds) == 1 {
		sc.vars["PWD"] = arg{text: sc.cwds[0]}
	}
	read(r, sc)
	r.out.ends = sc.cwds
	for name, body := range r.funcs { // defined, never called here: still runnable
		if !r.called[name] {
			fs := sc.clone()
			fs.pos = nil
			r.stmt(body, fs, input{})
		}
	}
	r.out.unclear = r.out.unclear || r.out.alone && len(r.out.calls) > 1 || r.rewritesProg()
	return r.out
}

// toSlash writes a Windows path as the shells there do (C:\x is /c/x).
func toSlash(p string) string {
	if runtime.GOOS != "windows" {
		return p
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && p[1] == ':' {
		p = "/" + strings.ToLower(p[:1]) + p[2:]
	}
	return p
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return path.Clean(toSlash(cmp.Or(h, "/nonexistent-home")))
}

func (r *reader) script(src string, sc *scope, stdin input) {
	if r.depth >= maxDepth {
		r.out.unclear = true
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	stmts, err := parseStmts(src)
	r.out.unclear = r.out.unclear || err != nil
	for _, st := range stmts {
		r.stmt(st, sc, stdin)
	}
}

// parseStmts parses src; on a syntax error it still returns the statements
// before it (bash runs those). A parser panic is a syntax error too.
func parseStmts(src string) (stmts []*syntax.Stmt, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("shell parser: %v", p)
		}
	}()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err == nil {
		return f.Stmts, nil
	}
	for st, serr := range syntax.NewParser(syntax.Variant(syntax.LangBash)).StmtsSeq(strings.NewReader(src)) {
		if serr != nil || st == nil {
			break
		}
		stmts = append(stmts, st)
	}
	return stmts, err
}

func (r *reader) stmts(list []*syntax.Stmt, sc *scope) {
	for _, st := range list {
		r.stmt(st, sc, input{})
	}
}

func (r *reader) branch(list []*syntax.Stmt, sc *scope) {
	defer func(was bool) { sc.cond = was }(sc.cond)
	sc.cond = true
	r.stmts(list, sc)
}

// stmt walks one statement and returns what it writes to stdout.
func (r *reader) stmt(st *syntax.Stmt, sc *scope, stdin input) input {
	if st == nil {
		return input{}
	}
	if r.steps++; r.steps > maxSteps {
		r.out.unclear = true
		return input{}
	}
	r.substs(st.Cmd, sc)
	var redirs []redir
	for _, rd := range st.Redirs {
		r.substs(rd, sc)
		switch rd.Op {
		case syntax.WordHdoc:
			stdin = r.textInput(rd.Word, sc, false)
		case syntax.Hdoc, syntax.DashHdoc:
			stdin = r.textInput(rd.Hdoc, sc, true)
		case syntax.RdrIn:
			a := r.word1(rd.Word, sc)
			stdin = input{kind: inFile, files: []arg{a}, dl: a.download || r.isDownloaded(a)}
			if a.dynamic {
				stdin.kind = inUnknown
			}
		default:
			if rd.Word != nil {
				redirs = append(redirs, redir{op: rd.Op, target: r.word1(rd.Word, sc)})
			}
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return r.callExpr(c, sc, stdin, redirs)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return r.pipeline(c, sc, stdin)
		}
		return r.andOr(c, sc, stdin)
	case *syntax.Subshell:
		r.stmts(c.Stmts, sc.clone())
	case *syntax.Block:
		r.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			r.branch(ic.Cond, sc)
			r.branch(ic.Then, sc)
		}
	case *syntax.WhileClause:
		r.branch(c.Cond, sc)
		r.branch(c.Do, sc)
	case *syntax.ForClause:
		r.forClause(c, sc)
	case *syntax.CaseClause:
		for _, it := range c.Items {
			r.branch(it.Stmts, sc)
		}
	case *syntax.FuncDecl:
		r.funcDecl(c)
	case *syntax.DeclClause:
		for _, as := range c.Args {
			if as.Naked && as.Value != nil && strings.HasPrefix(as.Value.Lit(), "-") && strings.Contains(as.Value.Lit(), "n") {
				r.out.unclear = true // declare -n E=EDITOR: E='…' sets another variable
			}
			r.assign(as, sc)
		}
	case *syntax.LetClause, *syntax.ArithmCmd: // ((D=5)) sets D to what hub does not compute
		syntax.Walk(c, func(n syntax.Node) bool {
			if l, ok := n.(*syntax.Lit); ok && syntax.ValidName(l.Value) {
				sc.vars[l.Value] = unknown
			}
			return true
		})
	case *syntax.TimeClause:
		return r.stmt(c.Stmt, sc, stdin)
	case *syntax.CoprocClause:
		r.stmt(c.Stmt, sc.clone(), stdin)
	}
	return r.run(nil, &runCtx{sc: sc, redirs: redirs, layers: sc.layer, opaque: sc.opq}) // the redirections of a compound command
}

// andOr walks a && / || chain. A cd holds for what its && runs; what || runs
// may be where the shell was before it; after the chain, any of them (it may
// stop anywhere).
func (r *reader) andOr(c *syntax.BinaryCmd, sc *scope, stdin input) input {
	all, was := sc.cwds, sc.cond
	defer func() { sc.cond = was }()
	var out input
	var walk func(st *syntax.Stmt, cond bool, in input)
	walk = func(st *syntax.Stmt, cond bool, in input) {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.AndStmt && b.Op != syntax.OrStmt || len(st.Redirs) > 0 || st.Negated {
			sc.cond = cond
			out = r.stmt(st, sc, in)
			all = unionDirs(all, sc.cwds)
			return
		}
		walk(b.X, b.Op == syntax.OrStmt, in)
		left := sc.cwds
		walk(b.Y, cond, input{})
		if b.Op == syntax.OrStmt {
			sc.cwds = unionDirs(left, sc.cwds)
		}
	}
	walk(&syntax.Stmt{Cmd: c}, was, stdin)
	sc.cwds = all
	return out
}

// unionDirs is both sets of possible directories (nil, unknown, wins).
func unionDirs(a, b []string) []string {
	if a == nil || b == nil {
		return nil
	}
	out := append([]string(nil), a...)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > 8 {
		return nil
	}
	return out
}

func (r *reader) pipeline(c *syntax.BinaryCmd, sc *scope, stdin input) input {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(c.X)
	flatten(c.Y)
	for _, s := range stages {
		stdin = r.stmt(s, sc.clone(), stdin)
	}
	return stdin
}

func (r *reader) forClause(c *syntax.ForClause, sc *scope) {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		r.branch(c.Do, sc)
		return
	}
	items := r.fields(wi.Items, sc)
	if len(wi.Items) == 0 {
		items = r.positional(sc, 1)
	}
	if len(items) == 0 || len(items) > 16 || anyDynamic(items) {
		items = []arg{{dynamic: true}} // one walk, the variable unknown
	}
	for _, it := range items {
		sc.vars[wi.Name.Value] = it
		r.branch(c.Do, sc)
	}
}

// funcDecl records a function; a body calling itself twice, piped or backgrounded is a fork bomb.
func (r *reader) funcDecl(c *syntax.FuncDecl) {
	if c.Name == nil || c.Body == nil {
		return
	}
	name := c.Name.Value
	r.funcs[name] = c.Body
	calls, forked := 0, false
	syntax.Walk(c.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if ce, ok := n.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name {
				calls++
				forked = forked || n.Background
			}
		case *syntax.BinaryCmd:
			forked = forked || (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && slices.ContainsFunc([]*syntax.Stmt{n.X, n.Y}, func(s *syntax.Stmt) bool {
				ce, ok := s.Cmd.(*syntax.CallExpr)
				return ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name
			})
		}
		return true
	})
	if calls >= 2 || forked {
		r.setDeny(whyForkBomb)
	}
}

func (r *reader) setDeny(why string) { r.out.deny = cmp.Or(r.out.deny, why) }

// substs walks the substitutions of a node, not those of nested statements (walked on their own).
func (r *reader) substs(n syntax.Node, sc *scope) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.Stmt:
			return false
		case *syntax.CmdSubst:
			for i, st := range x.Stmts {
				out := r.stmt(st, sc.clone(), input{})
				if i == 0 && len(x.Stmts) == 1 && out.kind == inText {
					r.substOut[x] = strings.TrimRight(out.text, "\n")
				}
			}
			return false
		case *syntax.ProcSubst:
			r.stmts(x.Stmts, sc.clone())
			return false
		case *syntax.FuncDecl:
			return false
		}
		return true
	})
}

func (r *reader) assign(as *syntax.Assign, sc *scope) {
	if as == nil || as.Name == nil || as.Naked {
		return
	}
	v := arg{dynamic: true}
	if as.Value != nil && as.Index == nil && as.Array == nil && !as.Append {
		v = r.joined(as.Value, sc)
	} else if as.Value == nil && as.Array == nil {
		v = arg{}
	}
	sc.vars[as.Name.Value] = v
	r.envProgram(as.Name.Value, v, &runCtx{sc: sc, layers: sc.layer, opaque: sc.opq}) // export EDITOR=…: read, though nothing runs after it
}

func (r *reader) textInput(w *syntax.Word, sc *scope, hdoc bool) input {
	if w == nil {
		return input{kind: inText}
	}
	a := r.joined(w, sc)
	if a.dynamic {
		return input{kind: inUnknown, dl: a.download}
	}
	if !hdoc {
		a.text += "\n"
	}
	return input{kind: inText, text: a.text}
}

func (r *reader) callExpr(c *syntax.CallExpr, sc *scope, stdin input, redirs []redir) input {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			r.assign(as, sc)
		}
		return r.run(nil, &runCtx{sc: sc, redirs: redirs, layers: sc.layer, opaque: sc.opq}) // a bare redirection
	}
	argv := r.fields(c.Args, sc)
	x := &runCtx{sc: sc, stdin: stdin, redirs: redirs, layers: sc.layer, opaque: sc.opq || len(c.Assigns) > 0}
	if len(c.Assigns) > 0 { // VAR=x cmd: the outer layer is not the program's
		var outer []string
		for _, as := range c.Assigns {
			if as.Name != nil {
				v := r.wordOrEmpty(as.Value, sc)
				outer = append(outer, as.Name.Value+"="+v.text)
				r.envProgram(as.Name.Value, v, x) // for a builtin or function too
			}
		}
		x.layers = append(x.layers[:len(x.layers):len(x.layers)], append(outer, texts(argv)...))
	}
	return r.run(argv, x)
}

// word1 expands a word that must stay one word (a redirect target).
func (r *reader) word1(w *syntax.Word, sc *scope) arg {
	fs := r.fields([]*syntax.Word{w}, sc)
	if len(fs) != 1 {
		a := r.joined(w, sc)
		a.dynamic = true
		return a
	}
	return fs[0]
}
