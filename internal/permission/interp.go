package permission

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Inline interpreter code (python -c, perl -e, …) hub cannot read as a program: it reads the
// shell commands such code hands to a shell and its recursive deletes of a literal path, and
// refuses code that may write into a credential store.

var (
	homeCalls = lazyRE(`(?:pathlib\.)?Path\.home\(\)|(?:os|require\(['"]os['"]\))\.homedir\(\)|Dir\.home|ENV\[['"]HOME['"]\]|os\.environ\[['"]HOME['"]\]|\$ENV\{HOME\}|os\.getenv\(['"]HOME['"]\)|process\.env\.HOME`)
	shellCall = lazyRE(`(?:system|popen|exec[lv]?p?e?|execSync|spawnSync|call|run|check_call|check_output|getoutput|getstatusoutput|shell_exec|passthru)\s*\(\s*(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|\[([^\]]*)\])`)
	backticks = lazyRE("`([^`]+)`")
	rmtree    = lazyRE(`(?:rmtree|rm_rf|rm_r|remove_tree|rmSync|rimraf|RemoveAll|rmdirSync)\s*\(\s*(?:[\w.]+\(\s*)?(?:'([^']*)'|"([^"]*)")`)
	quoted    = lazyRE(`'([^']*)'|"([^"]*)"`)
)

// homeRef is how code reaches a home (~, $HOME, USERPROFILE, /root, /Users/x, a climb).
var homeRef = lazyRE(`~|\bhome|userprofile|/root\b|\busers[/\\]|\.\.`)

// credName is a credential store's name as code spells it: a path, or its parts given to a join.
var credName = sync.OnceValue(func() *regexp.Regexp {
	alts := make([]string, len(credStores))
	for i, s := range credStores {
		parts := strings.Split(regexp.QuoteMeta(strings.ToLower(s)), "/")
		alts[i] = strings.Join(parts, `['"\s/\\,+()]*`)
	}
	return regexp.MustCompile(`(?:^|[^\w.-])(?:` + strings.Join(alts, "|") + `)(?:[^\w.-]|$)`)
})

// credCode refuses code naming a credential store along with a way to a home (or run in a home
// or a store); where it runs is unknown, the line is unclear.
func (r *reader) credCode(code string, cwds []string) {
	code = strings.ToLower(code)
	named := credName().MatchString(code)
	switch {
	case slices.ContainsFunc(cwds, func(d string) bool { return r.inCredStore(d, false) }),
		named && (homeRef().MatchString(code) || slices.ContainsFunc(cwds, r.holdsCredStore)):
		r.setDeny(whyCredCode)
	case named && cwds == nil:
		r.out.unclear = true
	}
}

// lazyRE compiles expr on first use: most starts of hub never read a command.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func interpCode(argv []arg) (string, bool) {
	if len(argv) > 2 && argv[1].text == "eval" { // deno eval CODE
		if ops := operands(argv[2:]); len(ops) > 0 {
			return ops[0].text, !ops[0].dynamic
		}
	}
	for i := 1; i+1 < len(argv); i++ { // an option and the code after it
		t := argv[i].text
		if slices.Contains([]string{"-c", "-e", "-E", "-r", "--eval", "-p", "--print"}, t) ||
			len(t) > 2 && t[0] == '-' && t[1] != '-' && (strings.HasSuffix(t, "e") || strings.HasSuffix(t, "c")) {
			return argv[i+1].text, !argv[i+1].dynamic
		}
	}
	return "", false
}

func (r *reader) interp(argv []arg, x *runCtx) {
	code, ok := interpCode(argv)
	if ops := operands(argv[1:]); !ok && x.stdin.kind == inText && (len(ops) == 0 || ops[0].text == "-") {
		code, ok = x.stdin.text, true // the program on stdin: python3 <<< '…'
	}
	if !ok {
		return
	}
	r.credCode(code, x.sc.cwds)
	code = homeCalls().ReplaceAllString(code, `"~"`)
	for _, m := range shellCall().FindAllStringSubmatch(code, 8) {
		script := m[1] + m[2]
		if m[3] != "" { // an argv list
			var words []string
			for _, q := range quoted().FindAllStringSubmatch(m[3], -1) {
				words = append(words, quoteWord(q[1]+q[2]))
			}
			script = strings.Join(words, " ")
		}
		r.nested(arg{text: script}, x, nil)
	}
	if !strings.HasPrefix(progName(argv[0].text), "python") {
		for _, m := range backticks().FindAllStringSubmatch(code, 8) {
			r.nested(arg{text: m[1]}, x, nil)
		}
	}
	for _, m := range rmtree().FindAllStringSubmatch(code, 8) {
		word := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: m[1] + m[2]}}}
		rm := append([]arg{{text: "rm"}, {text: "-rf"}, {text: "--"}}, r.fields([]*syntax.Word{word}, x.sc)...)
		r.run(rm, &runCtx{sc: x.sc, layers: x.layers, opaque: true})
	}
}
