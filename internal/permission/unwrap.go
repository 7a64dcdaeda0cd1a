package permission

import (
	"cmp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Unwrapping: the programs that run another program (sudo, env, xargs,
// find -exec, sh -c, …) are peeled off, so the rules see what runs.

// runCtx is how one simple command runs.
type runCtx struct {
	sc     *scope
	stdin  input
	redirs []redir
	layers [][]string
	opaque bool
}

// env is the variable name as the line sets it for the program: an
// assignment or env layer before it, else an earlier export or assignment.
func (x *runCtx) env(name string) (arg, bool) {
	if v, ok := layerEnv(x.layers, name); ok {
		return v, true
	}
	v, ok := x.sc.vars[name]
	return v, ok
}

// fork is x for a second reading, with a scope of its own.
func (x *runCtx) fork() *runCtx {
	y := *x
	y.sc = x.sc.clone()
	return &y
}

var (
	downloaders  = set("curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh", "lwp-download", "lwp-request")
	shells       = set("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "yash", "csh", "tcsh", "posh", "rbash", "hush", "cmd")
	interpreters = set("python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "deno", "bun", "lua", "tclsh", "rscript", "osascript", "pwsh", "powershell", "pwsh-preview")
	// plainWrappers change neither who runs nor what: name -> options that take a value.
	plainWrappers = map[string]string{
		"nohup": "", "time": "fo", "command": "", "builtin": "", "exec": "a", "stdbuf": "ioe", "unbuffer": "",
		"setsid": "", "nice": "n", "ionice": "cnpPu", "strace": "oepsuEIabXPSO", "ltrace": "oepsunaAx",
		"timeout": "sk", "sudo": "ugpCUrtThDR", "doas": "uC", "pkexec": "u", "runuser": "ugs", "chroot": "",
		"systemd-run": "pueEMGHs", "unshare": "", "nsenter": "tSG", "fakeroot": "ls", "proxychains": "f",
		"proxychains4": "f", "torsocks": "aPpu", "catchsegv": "", "valgrind": "", "firejail": "", "cgexec": "g",
		"taskset": "", "chrt": "", "faketime": "f", "numactl": "CNmpPi", "caffeinate": "tw", "sg": "", "doas-keepenv": "",
		"xcrun": "", "arch": "de", "corepack": "", "npx": "pwc", "bunx": "p", "uvx": "p", // npm exec, pnpm dlx, … are npx
	}
	// longValued are wrappers' long options that take the next word.
	longValued = map[string][]string{
		"sudo":        {"user", "group", "host", "prompt", "chdir", "chroot", "close-from", "role", "type", "other-user", "command-timeout"},
		"doas":        {"user"},
		"timeout":     {"signal", "kill-after"},
		"chroot":      {"userspec", "groups"},
		"nice":        {"adjustment"},
		"ionice":      {"class", "classdata", "pid", "pgid", "uid"},
		"runuser":     {"user", "group", "supp-group", "shell", "command"},
		"systemd-run": {"property", "unit", "setenv", "description", "slice", "uid", "gid", "working-directory", "nice", "on-calendar", "on-active", "machine", "host"},
		"nsenter":     {"target", "setuid", "setgid"},
		"strace":      {"output", "trace", "signal", "attach", "user"},
		"xcrun":       {"sdk", "toolchain"},
		"npx":         {"package", "workspace", "call", "shell-mode"},
		"bunx":        {"package"},
		"uvx":         {"from", "with", "python", "with-requirements", "index", "default-index"},
	}
	// npxRunners run a package's program as npx does (they may fetch it).
	npxRunners = set("npm exec", "npm x", "pnpm exec", "pnpm dlx", "yarn dlx", "yarn exec", "bun x", "bun exec")
	// pnpmCommands and bunCommands are the managers' own commands; any other
	// first word, and one after "bun run", may be a program they run.
	pnpmCommands = set("add", "i", "install", "it", "install-test", "ln", "link", "prune", "rb", "rebuild", "rm", "remove",
		"un", "uninstall", "unlink", "up", "update", "upgrade", "import", "fetch", "patch", "patch-commit", "patch-remove",
		"approve-builds", "ignored-builds", "audit", "ls", "list", "ll", "la", "outdated", "why", "licenses", "peers",
		"run", "run-script", "t", "tst", "test", "exec", "dlx", "create", "start", "stop", "restart", "publish", "pack",
		"recursive", "m", "multi", "server", "store", "root", "bin", "setup", "init", "deploy", "doctor", "c", "config",
		"get", "set", "env", "runtime", "cat-file", "cat-index", "find-hash", "self-update", "dedupe", "cache", "clean",
		"pm", "sbom", "help", "completion", "install-completion", "uninstall-completion", "with", "access", "adduser",
		"bugs", "deprecate", "dist-tag", "docs", "edit", "info", "login", "logout", "owner", "ping", "prefix", "profile",
		"pkg", "repo", "s", "se", "search", "set-script", "show", "star", "stars", "team", "token", "unpublish", "unstar",
		"v", "version", "view", "whoami", "xmas")
	bunCommands = set("run", "test", "x", "repl", "exec", "install", "i", "add", "a", "remove", "rm", "update", "outdated",
		"audit", "link", "unlink", "pm", "publish", "patch", "patch-commit", "build", "init", "create", "c", "upgrade",
		"info", "why", "help", "feedback", "completions", "discord", "getcompletes")
	// firstOperand wrappers take one operand before the command.
	firstOperand = set("timeout", "chroot", "taskset", "chrt", "faketime", "sg")
	// privileged wrappers: an allow rule for the program does not cover them.
	privileged = set("sudo", "doas", "pkexec", "runuser", "chroot", "su", "sg", "nsenter", "unshare", "systemd-run", "fakeroot")
)

// npxRunnerAt is where argv's npxRunners words stand past the runner's options
// (a word after an option may be one); the last is the runner's.
func npxRunnerAt(argv []string) []int {
	prog := progName(argv[0])
	if prog == "pnpx" { // pnpm dlx
		return []int{0}
	}
	var at []int
	run := false // past "bun run": its options, then a program, script or file
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		switch {
		case npxRunners[prog+" "+w]:
			at = append(at, i)
		case prog == "bun" && w == "run" && !run:
			run = true
			continue
		case prog == "pnpm" && !strings.HasPrefix(w, "-") && !pnpmCommands[w], prog == "bun" && programWord(w) && (run || !bunCommands[w]):
			at = append(at, i-1) // the program starts here, as after "pnpm exec"
		}
		if !strings.HasPrefix(w, "-") && (i == 1 || !strings.HasPrefix(argv[i-1], "-") || strings.Contains(argv[i-1], "=")) {
			break
		}
	}
	return at
}

// shellMode reports a runner that hands its words to a shell: bun exec
// 'LINE', pnpm -c or --shell-mode before exec or dlx (after, the program's).
func shellMode(runner []arg) bool {
	prog, last := progName(runner[0].text), runner[len(runner)-1].text
	return prog == "bun" && last == "exec" || prog == "pnpm" && slices.ContainsFunc(runner[1:], func(a arg) bool {
		return strings.HasPrefix(a.text, "--shell-mode") || len(a.text) > 1 && a.text[0] == '-' && a.text[1] != '-' && strings.ContainsRune(a.text, 'c')
	})
}

// programWord is a word bun runs as a program, not as a file.
func programWord(w string) bool {
	return w != "" && !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "./\\")
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func texts(argv []arg) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a.text
	}
	return out
}

// run unwraps argv and records what runs; it returns what it writes to stdout.
func (r *reader) run(argv []arg, x *runCtx) input {
	for {
		if len(argv) == 0 {
			if len(x.redirs) > 0 {
				r.emit(r.newCall(nil, x))
			}
			return input{}
		}
		p := argv[0]
		x.layers = append(x.layers[:len(x.layers):len(x.layers)], texts(argv))
		if p.subst {
			r.out.unclear = true // a program from a substitution: asked every time
		}
		if p.dynamic {
			r.out.unclear = true
			if p.maybe { // ${G:-gpg}: also the program it names when unset
				r.run(append([]arg{{text: p.text}}, argv[1:]...), x.fork())
			}
			if len(argv) > 2 && len(argv[1].text) > 1 && argv[1].text[0] == '-' && strings.ContainsRune(argv[1].text, 'c') {
				r.shell(argv, x) // $SHELL -c '…': whatever the shell, the script is this one
			}
			r.emit(r.newCall(argv, x))
			return input{kind: inUnknown, dl: p.download || x.stdin.dl}
		}
		if isAssignment(p.text) { // sudo VAR=x cmd sets VAR for cmd
			x.opaque, argv = true, argv[1:]
			continue
		}
		name := progName(p.text)
		readsInto(name, argv[1:], x.sc)
		r.pkgScripts(name, argv[1:], x)
		r.preCommit(name, argv[1:], x)
		sub := 1
		if at := npxRunnerAt(texts(argv)); len(at) > 0 {
			for _, i := range at[:len(at)-1] { // the runner's word, or an option's value
				r.run(append([]arg{{text: "npx"}}, argv[i+1:]...), x.fork())
			}
			name, sub = "npx", at[len(at)-1]+1
			if line := argv[sub:]; shellMode(argv[:sub]) { // its words are one line a shell runs
				if len(line) > 0 && line[0].text == "--" {
					line = line[1:]
				}
				if len(line) > 0 {
					argv = append(slices.Clone(argv[:sub]), arg{text: "-c"}, joinArgs(line))
				}
			}
		}
		if opts, ok := plainWrappers[name]; ok {
			rest, more := r.plainWrapper(name, opts, argv[sub:], x)
			if !more {
				if (name == "sudo" || name == "doas") && hasShort(argv[1:], "si") {
					return r.shell([]arg{{text: "sh"}}, x) // sudo -s, sudo -i: a root shell reading stdin
				}
				return r.final(argv, x)
			}
			argv = rest
			continue
		}
		if as, ok := r.winRead(argv); ok { // reg delete KEY as rm -r, certutil -urlcache as wget, …
			r.run(as, x.fork())
			return r.final(argv, x)
		}
		r.toolRuns(name, argv[1:], x)
		if words := texts(argv[:min(len(argv), 3)]); len(words) > 1 && (gitRunners[name+" "+words[1]] || len(words) > 2 && gitRunners[name+" "+words[1]+" "+words[2]]) {
			r.gitRepoConfig(x, nil) // they run git here: its hooks, for the deny list and an always's key
		}
		r.buildVars(name, argv[1:], x)
		switch {
		case name == "env":
			argv = r.env(argv[1:], x)
			continue
		case name == "busybox" && len(argv) > 1:
			argv = argv[1:]
			continue
		case name == "git":
			return r.final(r.git(argv, x), x)
		case name == "xargs":
			argv = r.xargs(argv[1:], x)
			continue
		case name == "find":
			r.find(argv, x)
			return r.final(argv, x)
		case name == "rg":
			r.rg(argv, x)
			return r.final(argv, x)
		case name == "parallel":
			r.parallel(argv[1:], x)
			return input{kind: inUnknown}
		case name == "pwsh" || name == "powershell" || name == "pwsh-preview":
			return r.pwshExe(argv, x)
		case name == "cmd":
			return r.cmdExe(argv, x)
		case name == "wsl":
			return r.wsl(argv, x)
		case name == "wmic" || name == "schtasks":
			return r.winLater(argv, x)
		case winExes[strings.TrimSuffix(name, ".com")]:
			return r.cmdCommand(argv, x)
		case shells[name]:
			return r.shell(argv, x)
		case name == "su" || name == "script":
			return r.suScript(name, argv, x)
		case name == "watch":
			return r.watch(argv, x)
		case name == "ssh":
			return r.ssh(argv, x)
		case name == "at" || name == "batch":
			return r.at(argv, x)
		case name == "flock": // flock [opts] FILE (-c SCRIPT | CMD …)
			rest := skipOpts(argv[1:], "wE", "timeout", "conflict-exit-code")
			script := len(rest) > 1 && (rest[1].text == "-c" || rest[1].text == "--command")
			switch {
			case script && len(rest) > 2:
				return r.nested(rest[2], x, nil)
			case script || len(rest) < 2:
				return r.final(argv, x)
			}
			argv = skipOpts(rest[1:], "wE")
			continue
		case name == "eval":
			r.eval(argv[1:], x)
			return input{kind: inUnknown}
		case name == "trap" && len(argv) > 2 && argv[1].text != "-":
			r.nested(argv[1], x, nil)
			return r.final(argv, x)
		case (name == "source" || name == ".") && len(argv) > 1 && argv[1].dynamic:
			r.out.unclear = true
			return r.final(argv, x)
		case name == "alias":
			for _, a := range argv[1:] {
				if k, v, ok := strings.Cut(a.text, "="); ok && !a.dynamic {
					r.aliases[k] = v
				}
			}
			return r.final(argv, x)
		case r.aliases[p.text] != "" && !r.active["alias "+p.text]:
			r.active["alias "+p.text] = true
			r.nested(arg{text: r.aliases[p.text] + " " + joinArgs(argv[1:]).text, dynamic: anyDynamic(argv[1:])}, x, nil)
			r.active["alias "+p.text] = false
			return input{kind: inUnknown}
		case name == "set" && len(argv) > 1 && (argv[1].text == "--" || !strings.HasPrefix(argv[1].text, "-") && !strings.HasPrefix(argv[1].text, "+")):
			ops := argv[1:]
			if ops[0].text == "--" {
				ops = ops[1:]
			}
			p0 := arg{text: "sh"}
			if len(x.sc.pos) > 0 {
				p0 = x.sc.pos[0]
			}
			x.sc.pos = append([]arg{p0}, ops...)
			return r.final(argv, x)
		case name == "cd" || name == "pushd" || name == "popd":
			if _, ok := x.env("CDPATH"); ok { // cd DIR goes to a CDPATH entry's DIR
				argv = []arg{argv[0], unknown}
			}
			before := x.sc.cwds
			r.cd(name, argv[1:], x.sc)
			if x.sc.cond && before != nil && x.sc.cwds != nil { // the cd may fail or not run
				x.sc.cwds, x.sc.vars["PWD"] = unionDirs(before, x.sc.cwds), unknown
			}
			return r.final(argv, x)
		}
		if i := slices.IndexFunc(argv, func(a arg) bool { return interpreters[strings.TrimRight(progName(a.text), "0123456789.")] }); i >= 0 {
			r.interp(argv[i:], x) // also as a runner's command: uv run python -c, npx node -e
		}
		if body := r.funcs[p.text]; body != nil && !r.active[p.text] {
			r.called[p.text], r.active[p.text] = true, true
			saved := x.sc.pos
			x.sc.pos = argv
			r.stmt(body, x.sc, x.stdin)
			x.sc.pos = saved
			r.active[p.text] = false
			return input{kind: inUnknown}
		}
		return r.final(argv, x)
	}
}

func (r *reader) newCall(argv []arg, x *runCtx) *call {
	return &call{argv: argv, layers: x.layers, opaque: x.opaque, redirs: x.redirs, cwds: x.sc.cwds, stdin: x.stdin}
}

// final records the innermost command; it returns what it writes.
func (r *reader) final(argv []arg, x *runCtx) input {
	r.envPrograms(x)
	c := r.newCall(argv, x)
	r.emit(c)
	return r.output(c)
}

// plainWrapper strips a wrapper's options (and timeout's duration,
// chroot's directory); more is false when no command follows.
func (r *reader) plainWrapper(name, valued string, args []arg, x *runCtx) ([]arg, bool) {
	if privileged[name] || name == "npx" || name == "bunx" || name == "uvx" {
		x.opaque = true
	}
	if name == "command" || name == "builtin" || name == "exec" {
		for _, a := range args {
			if a.text == "-v" || a.text == "-V" { // a lookup; nothing runs
				return nil, false
			}
			if !strings.HasPrefix(a.text, "-") {
				break
			}
		}
	}
	rest := optSpec{valued: valued, long: longValued[name], longValued: longValued[name]}.walk(args, func(o string, v arg) {
		if name == "npx" && (o == "c" || o == "call" || o == "shell-mode") { // npx -c 'npm login', pnpm exec --shell-mode '…': a shell line
			r.nested(v, x, nil)
		}
		if k, val, ok := strings.Cut(v.text, "="); ok && name == "systemd-run" && (o == "E" || o == "setenv") { // -E EDITOR=…
			r.envProgram(k, arg{text: val, dynamic: v.dynamic}, x)
		}
	})
	if c, ok := chdirOpts[name]; ok {
		r.wrapperDir(name, optSpec{valued, c[2], append([]string{c[1]}, longValued[name]...), longValued[name]}, args[:len(args)-len(rest)], x)
	}
	if (name == "strace" || name == "ltrace" || name == "ionice") && slices.ContainsFunc(args[:len(args)-len(rest)], func(a arg) bool {
		return a.text == "-p" || strings.HasPrefix(a.text, "-p") && name != "ionice"
	}) {
		return nil, false // attaches to a running process
	}
	if firstOperand[name] && len(rest) > 0 {
		rest = rest[1:]
	}
	if name == "sg" && len(rest) > 0 && rest[0].text == "-c" {
		rest = rest[1:]
	}
	if name == "sg" && len(rest) == 1 { // sg GROUP 'command line'
		r.nested(rest[0], x, nil)
		return nil, false
	}
	return rest, len(rest) > 0
}

// chdirOpts are wrappers' options naming the command's directory: short,
// long, and short only with an attached value (nsenter -w alone is the
// target's). systemd-run runs in / or ~ unless -d or --working-directory.
var chdirOpts = map[string][3]string{"sudo": {"D", "chdir", ""}, "nsenter": {"w", "wd", "w"}, "systemd-run": {"d", "same-dir", ""}}

func (r *reader) wrapperDir(name string, spec optSpec, opts []arg, x *runCtx) {
	c := chdirOpts[name]
	same := name != "systemd-run"
	dirs := []arg{}
	spec.walk(opts, func(o string, v arg) {
		switch {
		case name == "systemd-run" && (o == "d" || o == "same-dir"):
			same = true
		case o == c[0] || o == c[1] || o == "working-directory":
			if v.text == "" && !v.dynamic {
				v = unknown
			}
			dirs = append(dirs, v)
		}
	})
	x.sc = x.sc.clone()
	if !same { // any of here, / and ~: each is checked
		x.sc.cwds, x.sc.vars["PWD"] = unionDirs(x.sc.cwds, []string{"/", r.home}), unknown
	}
	for _, d := range dirs {
		r.cd("cd", []arg{{text: "--"}, d}, x.sc)
	}
}

// skipOpts drops leading options: short ones in valued take a value, long
// ones the next word unless given with =.
func skipOpts(args []arg, valued string, long ...string) []arg {
	return optSpec{valued: valued, long: long, longValued: long}.walk(args, func(string, arg) {})
}

// envLong are env's long options; envValued maps the valued ones to short.
var (
	envLong   = []string{"ignore-environment", "null", "unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal", "list-signal-handling", "debug", "help", "version"}
	envValued = map[string]string{"unset": "u", "chdir": "C", "split-string": "S"}
)

// env: options, NAME=VALUE, -S "split string", -C dir.
func (r *reader) env(args []arg, x *runCtx) []arg {
	for len(args) > 0 {
		a, t := args[0], args[0].text
		if a.dynamic || t != "-" && !strings.HasPrefix(t, "-") && !strings.Contains(t, "=") {
			return args
		}
		args = args[1:]
		opt, val, hasVal := "", arg{}, false
		switch k, v, set := strings.Cut(t, "="); {
		case t == "--":
			return args
		case set && !strings.HasPrefix(t, "-"): // any NAME=VALUE, BASH_FUNC_ls%%=() {…} too
			x.opaque = true
			r.envProgram(k, arg{text: v}, x)
		case strings.HasPrefix(t, "--"):
			name, v, eq := strings.Cut(t[2:], "=")
			opt, val, hasVal = envValued[longOpt(name, envLong)], arg{text: v}, eq
		case len(t) > 1:
			if i := strings.IndexAny(t[1:], "uCSP"); i >= 0 { // the first valued option ends the cluster
				opt, val, hasVal = t[1+i:2+i], arg{text: t[2+i:]}, len(t) > 2+i
			}
		}
		if opt == "" {
			continue
		}
		if !hasVal {
			if len(args) == 0 {
				return nil
			}
			val, args = args[0], args[1:]
		}
		switch opt {
		case "S":
			if val.dynamic {
				r.out.unclear = true
			}
			return append(r.splitString(val.text, x.sc), args...)
		case "C":
			x.sc = x.sc.clone()
			r.cd("cd", []arg{{text: "--"}, val}, x.sc)
		}
	}
	return nil
}

// longOpt is the one of names that name (without dashes) is or uniquely prefixes.
func longOpt(name string, names []string) string {
	if slices.Contains(names, name) {
		return name
	}
	found := ""
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			if found != "" && found != n {
				return ""
			}
			found = n
		}
	}
	return found
}

// splitString is env -S's argument split into words.
func (r *reader) splitString(s string, sc *scope) []arg {
	f := parseWords(s)
	if f == nil {
		r.out.unclear = true
		return []arg{{text: s}}
	}
	return r.fields(f, sc)
}

// readsInto makes unknown the variables builtin name sets from what only the
// shell knows (read D, printf -v D, …), and all after a sourced script.
func readsInto(name string, args []arg, sc *scope) {
	switch name {
	case "source", ".":
		for k := range sc.vars {
			sc.vars[k] = unknown
		}
	case "printf":
		for i, a := range args {
			if v, ok := strings.CutPrefix(a.text, "-v"); ok && v == "" && i+1 < len(args) {
				sc.vars[args[i+1].text] = unknown
			} else if ok {
				sc.vars[v] = unknown
			}
		}
	case "read", "mapfile", "readarray", "getopts", "let", "unset":
		for _, a := range args {
			if k, _, _ := strings.Cut(a.text, "="); syntax.ValidName(k) {
				sc.vars[k] = unknown
			}
		}
	}
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

// git strips the options before the subcommand; -c and --exec-path can
// run other programs, so they make the call opaque.
func (r *reader) git(argv []arg, x *runCtx) []arg {
	args := argv[1:]
	for name, v := range x.sc.vars { // export GIT_CONFIG_PARAMETERS=…; git fetch: as GIT_CONFIG_PARAMETERS=… git fetch
		if strings.HasPrefix(name, "GIT_CONFIG_") {
			x.layers = append(x.layers[:len(x.layers):len(x.layers)], []string{name + "=" + v.text})
		}
	}
	stripped, named, sets := false, map[string]*arg{}, []arg(nil) // --work-tree, --git-dir, a -C hub cannot know
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") && (!args[0].dynamic || strings.HasPrefix(args[0].text, "--work-tree=") || strings.HasPrefix(args[0].text, "--git-dir=")) {
		a, t := args[0], args[0].text
		stripped, args = true, args[1:]
		var val []arg // the next word, for the options that take it
		if slices.Contains([]string{"-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace", "--super-prefix"}, t) && len(args) > 0 {
			val, args = args[:1], args[1:]
		}
		switch name, v, eq := strings.Cut(t, "="); {
		case t == "-C" && val != nil:
			x.sc = x.sc.clone()
			r.cd("cd", val, x.sc)
			if val[0].dynamic {
				named[t] = &val[0]
			}
		case (name == "--work-tree" || name == "--git-dir") && (eq || val != nil):
			named[name] = &arg{text: v, dynamic: a.dynamic}
			if !eq {
				named[name] = &val[0]
			}
		case t == "-c" || strings.HasPrefix(t, "--config-env") || strings.HasPrefix(t, "--exec-path"):
			x.opaque = true
			if v, ok := strings.CutPrefix(t, "--config-env="); ok {
				val = []arg{{text: v, dynamic: a.dynamic}}
			}
			for _, v := range val { // -c NAME=VALUE, --config-env NAME=VARIABLE
				if t != "-c" {
					k, env, _ := strings.Cut(v.text, "=")
					w, set := x.env(env)
					v = arg{text: k + "=" + w.text, dynamic: v.dynamic || w.dynamic || !set}
				}
				sets = append(sets, v)
				if k, w, _ := strings.Cut(v.text, "="); strings.EqualFold(k, "core.worktree") {
					named["--work-tree"] = &arg{text: w, dynamic: v.dynamic}
				}
			}
		}
	}
	for _, w := range slices.Concat(x.layers...) { // GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=…, GIT_CONFIG_PARAMETERS="'k'='v'"
		if n, key, ok := strings.Cut(w, "="); ok && strings.HasPrefix(n, "GIT_CONFIG_KEY_") {
			if v, ok := layerEnv(x.layers, "GIT_CONFIG_VALUE_"+n[len("GIT_CONFIG_KEY_"):]); ok {
				sets = append(sets, arg{text: key + "=" + v.text, dynamic: v.dynamic})
			}
		} else if n == "GIT_CONFIG_PARAMETERS" {
			sets = append(sets, r.fields(parseWords(key), x.sc)...)
		}
	}
	for _, v := range sets { // in the directory of the last -C, before an alias is looked up
		r.gitConfig(v, x)
	}
	repo := r.gitRepoConfig(x, named["--git-dir"])
	for n := 0; len(args) > 0 && n < maxDepth && !gitCommands[args[0].text]; n++ { // an alias may name another; git runs its own command before one
		def, ok := r.gitAlias(args[0].text, repo)
		if !ok || r.active["git alias "+args[0].text] {
			break
		}
		x.opaque = true
		name, ws := args[0].text, parseWords(def)
		if strings.HasPrefix(def, "!") { // a shell command, as git runs it: sh -c 'DEF "$@"' DEF ARGS…
			r.gitRuns(args, x)
			r.active["git alias "+name] = true
			r.nested(arg{text: def[1:] + ` "$@"`}, x, append([]arg{{text: def}}, args[1:]...))
			r.active["git alias "+name] = false
			return argv
		} else if ws == nil {
			r.out.unclear = true
			return argv
		}
		args = append(r.fields(ws, x.sc), args[1:]...)
		stripped = true
		if strings.HasPrefix(args[0].text, "-") { // git's own options (-c, -C) in front: read as typed
			r.active["git alias "+name] = true
			defer func() { r.active["git alias "+name] = false }()
			return r.git(append([]arg{argv[0]}, args...), x)
		}
	}
	if spelled := gitSpelled(args); !slices.Equal(texts(spelled), texts(args)) {
		args, stripped = spelled, true
	}
	r.gitRuns(args, x)
	if len(args) > 0 {
		r.gitRepoRunsFor(args[0].text, repo, x)
	}
	r.gitWorkTree(x, named, args)
	if !stripped {
		return argv
	}
	out := append([]arg{argv[0]}, args...)
	x.layers = append(x.layers[:len(x.layers):len(x.layers)], texts(out))
	return out
}

// gitRunners are commands that run git, so its hooks, where they run.
var gitRunners = set("gh pr checkout", "gh pr merge", "gh pr create", "gh repo sync", "npm version", "pnpm version", "yarn version",
	"pre-commit run", "lefthook run")

// gitLongs are the long options of a git subcommand hub reads; git takes
// any prefix: git push --rec=CMD is --receive-pack=CMD.
var gitLongs = map[string][]string{"clone": strings.Fields("--upload-pack --config --template --separate-git-dir --reference"),
	"init": {"--template", "--separate-git-dir"}, "fetch": {"--upload-pack"}, "pull": {"--upload-pack"}, "ls-remote": {"--upload-pack", "--exec"},
	"push": {"--receive-pack", "--exec"}, "rebase": {"--exec"}, "archive": {"--exec"}, "difftool": {"--extcmd"}, "send-email": {"--sendmail-cmd"}}

// gitSpelled is args (the subcommand first) with such options spelled out.
func gitSpelled(args []arg) []arg {
	if len(args) == 0 {
		return args
	}
	out := slices.Clone(args)
	for i, a := range out[1:] {
		name, v, eq := strings.Cut(a.text, "=")
		if a.text == "--" {
			break
		}
		if j := slices.IndexFunc(gitLongs[args[0].text], func(l string) bool { return len(name) > 3 && strings.HasPrefix(l, name) }); j >= 0 {
			out[i+1].text = gitLongs[args[0].text][j] + map[bool]string{true: "=" + v}[eq]
		}
	}
	return out
}

// gitRuns reads the programs a git command (subcommand first) runs, now or
// later: by config, an option, submodule foreach, bisect run, ext:: remotes.
func (r *reader) gitRuns(args []arg, x *runCtx) {
	if k := (&check{r: r}); len(args) > 1 { // clone -c, -u; fetch --upload-pack, push --receive-pack, rebase -x, …
		if ops := gitConfigOps(args[1:]); args[0].text == "config" && len(ops) > 1 {
			r.gitConfig(arg{text: ops[0].text + "=" + joinArgs(ops[1:]).text, dynamic: anyDynamic(ops[1:])}, x)
		}
		long := `--upload-pack --receive-pack --exec --extcmd --sendmail-cmd --to-cmd --cc-cmd --header-cmd --setup --tree-filter
			--index-filter --msg-filter --env-filter --parent-filter --commit-filter --tag-name-filter`
		opts := slices.Clone(args[1:]) // --exe is --exec: git takes a long option's unique prefix
		for i, a := range opts {
			opts[i].text = longName(a.text, strings.Fields(long+" --config --template --open-files-in-pager")...)
			v, ok := strings.CutPrefix(opts[i].text, "--open-files-in-pager=")
			if j := strings.IndexByte(a.text, 'O'); !ok && j > 0 && j < len(a.text)-1 && a.text[0] == '-' && a.text[1] != '-' {
				v, ok = a.text[j+1:], true // -nOPAGER
			}
			if ok && args[0].text == "grep" { // git grep -O'PAGER' runs PAGER on the files found
				opts[i].text = "--exec=" + v
			}
		}
		sets, _ := k.optValues(opts, map[string]string{"clone": "c"}[args[0].text], "--config", "bBouj")
		runs, _ := k.optValues(opts, map[string]string{"clone": "u", "rebase": "x", "difftool": "x"}[args[0].text], long, "bBocjt")
		tpls, _ := k.optValues(opts, "", "--template", "")
		if v, ok := x.env("GIT_TEMPLATE_DIR"); ok {
			tpls = append(tpls, v)
		}
		for _, v := range tpls {
			sets = append(sets, arg{text: "init.templateDir=" + v.text, dynamic: v.dynamic})
		}
		for _, v := range sets {
			r.gitConfig(v, x)
		}
		if rest := skipOpts(args[1:], ""); args[0].text == "submodule" && len(rest) > 1 && rest[0].text == "foreach" {
			runs = append(runs, joinArgs(skipOpts(rest[1:], ""))) // a shell line
		} else if args[0].text == "bisect" && args[1].text == "run" {
			r.run(args[2:], x.fork())
		}
		for _, a := range args[1:] { // a remote, or an option's (archive --remote=ext::…); a local command's is a message
			if _, v, ok := strings.Cut(a.text, "="); ok && strings.HasPrefix(a.text, "-") {
				a.text = v
			}
			if !gitLocal[args[0].text] {
				r.ext(a, x)
			}
		}
		for _, v := range runs {
			r.nested(v, x, nil)
		}
	}
}

// toolRuns reads what go runs: -exec, -toolexec, -vettool, go generate's lines.
func (r *reader) toolRuns(name string, args []arg, x *runCtx) {
	if name != "go" {
		return
	}
	k := &check{r: r}
	lines, _ := k.optValues(args, "", "-exec --exec -toolexec --toolexec", "")
	for _, v := range lines {
		r.nested(v, x, nil)
	}
	progs, _ := k.optValues(args, "", "-vettool --vettool", "")
	for _, v := range progs {
		r.run([]arg{v}, x.fork())
	}
	r.goGenerate(args, x)
}

// optSpec is how a program's options read: short ones in valued take a
// value (attached or the next word), in optional only an attached one; long
// ones in longValued take the next word unless given with =.
type optSpec struct {
	valued, optional string
	long, longValued []string
}

var (
	// GNU's and BSD's (-J, -R, -S) xargs.
	xargsOpts = optSpec{"aEIJLnPRSsd", "eil", []string{"null", "arg-file", "delimiter", "eof", "replace", "max-lines", "max-args",
		"interactive", "max-chars", "verbose", "show-limits", "no-run-if-empty", "exit", "max-procs", "process-slot-var", "open-tty", "help", "version"},
		[]string{"arg-file", "delimiter", "max-args", "max-chars", "max-procs", "process-slot-var"}}
	watchOpts = optSpec{"nq", "d", []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "interval", "precise",
		"equexit", "no-rerun", "no-title", "no-wrap", "exec", "help", "version"}, []string{"interval", "equexit"}}
)

// walk calls each with every leading option (a letter or long name, "" for
// an unknown one) and its value; it returns what follows.
func (s optSpec) walk(args []arg, each func(o string, v arg)) []arg {
	for len(args) > 0 {
		a, t := args[0], args[0].text
		if a.dynamic || t == "-" || !strings.HasPrefix(t, "-") {
			return args
		}
		args = args[1:]
		if t == "--" {
			return args
		}
		if strings.HasPrefix(t, "--") {
			n, v, eq := strings.Cut(t[2:], "=")
			o, val := longOpt(n, s.long), arg{text: v}
			if !eq && o != "" && slices.Contains(s.longValued, o) && len(args) > 0 {
				val, args = args[0], args[1:]
			}
			each(o, val)
			continue
		}
		for i := 1; i < len(t); i++ {
			c := t[i : i+1]
			if !strings.Contains(s.valued+s.optional, c) {
				each(c, arg{})
				continue
			}
			val := arg{text: t[i+1:]}
			if val.text == "" && strings.Contains(s.valued, c) && len(args) > 0 {
				val, args = args[0], args[1:]
			}
			each(c, val)
			break
		}
	}
	return nil
}

// alsoRead reads alt, an older, looser reading of a wrapper's options, when it
// differs from cmd: the line is unclear, and what alt is refused for stays so.
func (r *reader) alsoRead(alt, cmd []arg, x *runCtx) {
	if slices.EqualFunc(alt, cmd, func(a, b arg) bool { return a.text == b.text }) {
		return
	}
	r.out.unclear = true
	r.run(alt, x.fork())
}

// xargs: its command gets the input's words as operands or for its replace-string.
func (r *reader) xargs(args []arg, x *runCtx) []arg {
	x.opaque = true
	replace, items := "", inputItems(x.stdin)
	cmd := xargsOpts.walk(args, func(o string, v arg) {
		switch o {
		case "I", "J", "i", "replace":
			replace = cmp.Or(v.text, "{}")
			r.out.unclear = r.out.unclear || v.dynamic
		case "a", "arg-file":
			items = inputItems(input{})
		}
	})
	out := xargsRun(cmd, replace, items)
	loose, looseRep := xargsLoose(args)
	alt := xargsRun(loose, looseRep, inputItems(x.stdin))
	x.stdin = input{}
	r.alsoRead(alt, out, x)
	return out
}

// xargsLoose is how hub read xargs' options before optSpec: kept so that
// no line is read more loosely than it was (see alsoRead).
func xargsLoose(args []arg) (cmd []arg, replace string) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "-I" && i+1 < len(args) {
			replace = args[i+1].text
		} else if strings.HasPrefix(t, "-I") && len(t) > 2 {
			replace = t[2:]
		} else if t == "-i" || strings.HasPrefix(t, "--replace") {
			replace = "{}"
		}
		if !strings.HasPrefix(t, "-") {
			break
		}
	}
	return skipOpts(args, "adEILnPs", "arg-file", "delimiter", "eof", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"), replace
}

func xargsRun(cmd []arg, replace string, items []arg) []arg {
	if len(cmd) == 0 {
		cmd = []arg{{text: "echo"}}
	}
	if replace == "" {
		return slices.Concat(cmd, items)
	}
	return substitute(cmd, replace, items)
}

// inputItems are the words a command reading names gets from stdin.
func inputItems(in input) []arg {
	switch in.kind {
	case inText:
		ws := strings.Fields(in.text)
		out := make([]arg, min(len(ws), 16))
		for i := range out {
			out[i] = arg{text: ws[i]}
		}
		return out
	case inFiles:
		return in.files
	}
	return []arg{{text: "\x00", dynamic: true, download: in.dl}}
}

// substitute replaces rep inside the words of cmd by each item in turn.
func substitute(cmd []arg, rep string, items []arg) []arg {
	out := make([]arg, 0, len(cmd))
	for _, c := range cmd {
		if !strings.Contains(c.text, rep) || len(items) == 0 {
			out = append(out, c)
			continue
		}
		for _, it := range items {
			if len(out) >= maxWords {
				return append(out, unknown)
			}
			n := c
			n.text = strings.ReplaceAll(c.text, rep, it.text)
			n.dynamic = n.dynamic || it.dynamic
			n.under = it.under
			n.download = n.download || it.download
			out = append(out, n)
		}
	}
	return out
}

// find: what -exec, -execdir, -ok and -okdir run on every file under the starts.
func (r *reader) find(argv []arg, x *runCtx) {
	items := underAll(findStarts(argv[1:]))
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		if !slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir"}, args[i].text) {
			continue
		}
		j := i + 1
		for j < len(args) && args[j].text != ";" && !(args[j].text == "+" && j > i+1 && args[j-1].text == "{}") {
			j++
		}
		cmd := args[i+1 : j]
		r.out.unclear = r.out.unclear || strings.HasSuffix(args[i].text, "dir") // run in each file's directory: git there runs its repository's config
		i = j
		if len(cmd) == 0 {
			continue
		}
		r.run(substitute(cmd, "{}", items), &runCtx{sc: x.sc.clone(), layers: x.layers, opaque: true})
	}
}

// findStarts are find's start paths.
func findStarts(args []arg) []arg {
	i := 0
	for ; i < len(args) && (slices.Contains([]string{"-H", "-L", "-P", "-D"}, args[i].text) || strings.HasPrefix(args[i].text, "-O")); i++ {
		if args[i].text == "-D" {
			i++ // its debug options
		}
	}
	args = args[min(i, len(args)):]
	if j := slices.IndexFunc(args, func(a arg) bool {
		return !a.dynamic && (strings.HasPrefix(a.text, "-") || slices.Contains([]string{"!", "(", ","}, a.text))
	}); j >= 0 {
		return args[:j]
	}
	return args
}

// rg: --pre PROG runs PROG on every file it searches (a pattern taken as a
// path too), --hostname-bin PROG runs PROG.
func (r *reader) rg(argv []arg, x *runCtx) {
	argv = slices.Concat(argv[:1], r.rgConfig(argv, x), argv[1:])
	var progs, paths []arg
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		n, v, eq := strings.Cut(a.text, "=")
		switch {
		case (n == "--pre" || n == "--hostname-bin") && !eq && i+1 < len(argv):
			i++
			progs = append(progs, argv[i])
		case (n == "--pre" || n == "--hostname-bin") && v != "":
			a.text = v
			progs = append(progs, a)
		case a.dynamic || !strings.HasPrefix(a.text, "-"):
			paths = append(paths, a)
		}
	}
	for _, p := range progs {
		r.run(append([]arg{p}, underAll(append(paths, arg{text: "."}))...), &runCtx{sc: x.sc.clone(), layers: x.layers, opaque: true})
	}
}

// parallel runs its command once per argument after :::, through a shell.
func (r *reader) parallel(args []arg, x *runCtx) {
	x.opaque = true
	long := []string{"jobs", "arg-file", "delimiter", "sshlogin", "halt", "joblog", "results", "timeout"}
	// -I and -q are read besides the plain reading: what either refuses stays refused.
	reps, quote := []string{"{}"}, false
	cmd := optSpec{"jPnNSadEIlLs", "", append(long, "quote"), long}.walk(args, func(o string, v arg) {
		r.out.unclear = r.out.unclear || o == "I" && v.dynamic
		if o == "I" && v.text != "" {
			reps = append(reps, v.text)
		}
		quote = quote || o == "q" || o == "quote"
	})
	items := inputItems(x.stdin)
	if i := slices.IndexFunc(cmd, func(a arg) bool { return slices.Contains([]string{":::", "::::", ":::+"}, a.text) }); i >= 0 {
		cmd, items = cmd[:i], cmd[i+1:]
	}
	for _, it := range items[:min(len(items), 16)] {
		if it.text == ":::" || it.text == "::::" {
			continue
		}
		for _, rep := range reps {
			line := substitute(cmd, rep, []arg{it})
			if len(line) == len(cmd) && !slices.ContainsFunc(cmd, func(a arg) bool { return strings.Contains(a.text, rep) }) {
				line = append(line, it)
			}
			r.nested(joinArgs(line), x, nil)
			if quote { // each word quoted, as parallel -q runs them
				for i := range line {
					line[i].text = quoteWord(line[i].text)
				}
				r.nested(joinArgs(line), x, nil)
			}
		}
	}
}

func joinArgs(args []arg) arg {
	out := arg{text: strings.Join(texts(args), " ")}
	for _, a := range args {
		out.dynamic = out.dynamic || a.dynamic
		out.glob = out.glob || a.glob
		out.download = out.download || a.download
		out.subst = out.subst || a.subst
	}
	return out
}

// shell: -c SCRIPT [$0 $1 …], a script file, or the script on stdin.
func (r *reader) shell(argv []arg, x *runCtx) input {
	args := argv[1:]
	cflag, sflag := false, false
	i := 0
opts:
	for ; i < len(args) && !args[i].dynamic; i++ {
		switch t := args[i].text; {
		case t == "--" || t == "-":
			i++
			break opts
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
			cflag = cflag || t == "--command"
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			cflag = cflag || strings.ContainsRune(t[1:], 'c')
			sflag = sflag || strings.ContainsRune(t[1:], 's')
			i += strings.Count(t[1:], "o") + strings.Count(t[1:], "O") // -o OPTION, -O SHOPT: each takes a word
		default:
			break opts
		}
	}
	ops := args[min(i, len(args)):]
	switch {
	case cflag:
		if len(ops) == 0 {
			return r.final(argv, x)
		}
		pos := ops[1:]
		if len(pos) == 0 {
			pos = []arg{argv[0]}
		}
		return r.nested(ops[0], x, pos)
	case len(ops) > 0 && !sflag:
		if ops[0].dynamic {
			r.out.unclear = true // a script hub cannot name: <(…), $F
		}
		return r.final(argv, x) // a script file
	}
	return r.fromStdin(argv, x, func(s string) input { return r.nested(arg{text: s}, x, nil) })
}

// fromStdin reads the script on stdin with read; an unknown one leaves the
// line unclear (a download is refused by the downloads rule).
func (r *reader) fromStdin(argv []arg, x *runCtx, read func(script string) input) input {
	switch in := x.stdin; {
	case in.kind == inText:
		x.stdin = input{}
		return read(in.text)
	case in.kind == inUnknown && !in.dl:
		r.out.unclear = true
	}
	return r.final(argv, x)
}

// nested walks a script argument inside the wrapper's layers; pos are its $0, $1, ….
func (r *reader) nested(script arg, x *runCtx, pos []arg) input {
	if r.readable(script) {
		sc := x.sc.clone()
		sc.layer, sc.opq = x.layers, x.opaque
		if pos != nil {
			sc.pos = pos
		}
		r.script(script.text, sc, x.stdin)
	}
	return input{kind: inUnknown} // what the script writes
}

// readable reports whether a script argument can be read: a substitution is
// unclear; an unknown one is not read (denied when it is a download).
func (r *reader) readable(script arg) bool {
	if script.subst {
		r.out.unclear = true
	}
	if !script.dynamic {
		return true
	}
	r.out.unclear = true
	if script.download {
		r.setDeny(whyDownload)
	}
	return false
}

// suScript: su [-] [user] -c SCRIPT, script [file] -c SCRIPT.
func (r *reader) suScript(name string, argv []arg, x *runCtx) input {
	if name == "su" {
		x.opaque = true
	}
	args := argv[1:]
	for i, a := range args {
		t := a.text
		switch {
		case (t == "--command" || len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "c")) && i+1 < len(args):
			return r.nested(args[i+1], x, nil) // --command, -c, or a cluster ending in c (-lc)
		case strings.HasPrefix(t, "--command="):
			return r.nested(arg{text: strings.TrimPrefix(t, "--command="), dynamic: a.dynamic, download: a.download}, x, nil)
		}
	}
	if name == "su" && x.stdin.kind != inNone {
		return r.shell([]arg{{text: "sh"}}, x) // su reads its commands from stdin
	}
	return r.final(argv, x)
}

// watch runs its arguments through sh -c (unless -x).
func (r *reader) watch(argv []arg, x *runCtx) input {
	args := argv[1:]
	direct := false
	cmd := watchOpts.walk(args, func(o string, _ arg) { direct = direct || o == "x" || o == "exec" })
	loose, looseDirect := watchLoose(args)
	same := slices.EqualFunc(loose, cmd, func(a, b arg) bool { return a.text == b.text })
	if len(cmd) == 0 && same {
		return r.final(argv, x)
	}
	x.opaque = true
	if !same || looseDirect != direct { // the older reading too: what it refused stays refused
		r.out.unclear = r.out.unclear || !same
		r.watchRun(argv, loose, looseDirect, x.fork())
	}
	return r.watchRun(argv, cmd, direct, x)
}

func (r *reader) watchRun(argv, cmd []arg, direct bool, x *runCtx) input {
	if len(cmd) == 0 {
		return r.final(argv, x)
	}
	if direct {
		return r.run(cmd, x)
	}
	return r.nested(joinArgs(cmd), x, nil)
}

// watchLoose is how hub read watch's options before optSpec (see alsoRead).
func watchLoose(args []arg) ([]arg, bool) {
	direct := false
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") {
			break
		}
		direct = direct || a.text == "-x" || a.text == "--exec"
	}
	return skipOpts(args, "ndgq", "interval", "differences"), direct
}

func (r *reader) eval(args []arg, x *runCtx) {
	s := joinArgs(args)
	if !r.readable(s) {
		return
	}
	saved := x.sc.layer // eval runs in the shell itself: only its layers are the wrapper's
	x.sc.layer = x.layers
	r.script(s.text, x.sc, x.stdin)
	x.sc.layer = saved
}

// cd moves the scope's working directories.
func (r *reader) cd(name string, args []arg, sc *scope) {
	ops := skipOpts(args, "")
	var target arg
	switch {
	case name == "popd" || len(ops) > 0 && (ops[0].text == "-" || strings.HasPrefix(ops[0].text, "+")):
		target = unknown // a directory from the stack
	case len(ops) == 0:
		target, _, _ = r.lookup("HOME", sc) // unknown when hub does not know it
	case ops[0].glob:
		target = unknown // cd ../x*: the shell picks the directory
	default:
		target = ops[0]
	}
	dirs, _ := resolve(target, sc.cwds) // nil when unknown
	sc.cwds, sc.vars["PWD"] = dirs, unknown
	if len(dirs) == 1 {
		sc.vars["PWD"] = arg{text: dirs[0]}
	}
}

// output is what a command writes to stdout.
func (r *reader) output(c *call) input {
	switch c.prog() {
	case "echo":
		ops := c.argv[1:]
		for len(ops) > 0 && slices.Contains([]string{"-n", "-e", "-E", "-ne", "-en"}, ops[0].text) {
			ops = ops[1:]
		}
		s := joinArgs(ops)
		if s.dynamic {
			return input{kind: inUnknown, dl: s.download}
		}
		if hasShort(c.argv[1:len(c.argv)-len(ops)], "e") { // -e, -ne or -en
			if t, _, err := expand.Format(nil, "%b", []string{s.text}); err == nil {
				s.text = t
			}
		}
		return input{kind: inText, text: s.text + "\n"}
	case "which", "command", "type":
		ops := operands(c.argv[1:])
		if len(ops) == 1 && !ops[0].dynamic && (c.prog() == "which" || hasShort(c.argv[1:], "vP")) {
			return input{kind: inText, text: ops[0].text + "\n"}
		}
	case "printf":
		ops := c.argv[1:]
		if len(ops) == 0 || anyDynamic(ops) {
			return input{kind: inUnknown, dl: joinArgs(ops).download}
		}
		s, _, err := expand.Format(nil, ops[0].text, texts(ops[1:]))
		if err != nil {
			return input{kind: inUnknown}
		}
		return input{kind: inText, text: s}
	case "cat", "tee":
		if c.prog() == "tee" || len(operands(c.argv[1:])) == 0 {
			return c.stdin
		}
	case "find":
		return input{kind: inFiles, files: underAll(findStarts(c.argv[1:]))}
	case "pwd":
		if len(c.cwds) == 1 {
			return input{kind: inText, text: c.cwds[0] + "\n"}
		}
	case "ls":
		return input{kind: inFiles, files: underAll(operands(c.argv[1:]))}
	}
	if downloaders[c.prog()] {
		return input{kind: inUnknown, dl: true}
	}
	return input{kind: inUnknown, dl: c.stdin.dl}
}

// underAll marks args (or ".") as naming everything under them.
func underAll(args []arg) []arg {
	out := slices.Clone(args)
	if len(args) == 0 {
		out = []arg{{text: "."}}
	}
	for i := range out {
		out[i].under = true
	}
	return out
}

func anyDynamic(args []arg) bool {
	return slices.ContainsFunc(args, func(a arg) bool { return a.dynamic })
}

// operands are the arguments that are not options (all after "--").
func operands(args []arg) []arg {
	var out []arg
	for i, a := range args {
		if a.text == "--" && !a.dynamic {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a.text, "-") || a.text == "-" || a.dynamic {
			out = append(out, a)
		}
	}
	return out
}

// ssh HOST CMD… runs CMD through the remote user's shell.
func (r *reader) ssh(argv []arg, x *runCtx) input {
	rest := skipOpts(argv[1:], "bcDEeFIiJLlmOopQRSWw")
	if len(rest) < 2 {
		return r.final(argv, x)
	}
	x.opaque = true
	return r.nested(joinArgs(rest[1:]), x, nil)
}

// at and batch run the script on their stdin later.
func (r *reader) at(argv []arg, x *runCtx) input {
	x.opaque = true
	if slices.ContainsFunc(argv[1:], func(a arg) bool { return slices.Contains([]string{"-f", "-l", "-r", "-d", "-c"}, a.text) }) {
		return r.final(argv, x) // a script file, or no script: a listing, a removal
	}
	r.out.unclear = r.out.unclear || x.stdin.kind == inUnknown // a download too: it runs later
	return r.fromStdin(argv, x, func(s string) input { return r.nested(arg{text: s}, x, nil) })
}

// gitConfig notes an alias git -c or git config sets, and reads a program
// git runs later (core.pager, …) as run here.
func (r *reader) gitConfig(kv arg, x *runCtx) {
	k, v, ok := strings.Cut(kv.text, "=")
	if name, isAlias := strings.CutPrefix(strings.ToLower(k), "alias."); ok && isAlias {
		r.gitAliases[name] = v
	} else if ok {
		r.gitURL(k, arg{text: v, dynamic: kv.dynamic}, x)
		if gitProgramKey(k, slices.Concat(gitProgramKeys[3:], gitBang)) {
			r.nested(arg{text: strings.TrimPrefix(v, "!"), dynamic: kv.dynamic}, x, nil)
		}
		switch strings.ToLower(k) { // hooks git runs: the directory's, a template's (git clone runs post-checkout)
		case "core.hookspath":
			r.out.unclear = r.out.unclear || kv.dynamic
			r.readHooks(gitHooksPath("", v, x), x)
		case "init.templatedir":
			ps, known := resolve((&check{r: r}).tilde(arg{text: v, dynamic: kv.dynamic}), x.sc.cwds)
			r.out.unclear = r.out.unclear || !known
			for _, p := range ps {
				r.readHooks([]string{joinShell(p, "hooks")}, x)
			}
		}
	}
}
