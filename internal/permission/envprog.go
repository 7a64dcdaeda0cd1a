package permission

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// Programs named outside the command line: by a variable, however the line
// sets it, and by a workspace file (rg's config, go generate's directives,
// package.json scripts). A Makefile is not read: make's language decides.

// progVars name a program another program runs: a command line, go's flags
// (GOFLAGS), or a word the shell expands, $(…) included (wordVars).
var progVars = strings.Fields(`GIT_SSH_COMMAND GIT_SSH GIT_PAGER PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR EDITOR VISUAL GIT_EXTERNAL_DIFF
	GIT_ASKPASS SSH_ASKPASS SUDO_ASKPASS GIT_PROXY_COMMAND GIT_MAN_VIEWER MANPAGER LESSOPEN LESSCLOSE BROWSER GH_BROWSER SUDO_EDITOR
	GH_EDITOR GH_PAGER KUBE_EDITOR SVN_EDITOR HGEDITOR FCEDIT PROMPT_COMMAND CC CXX CPP LD AR AS FC RUSTC RUSTC_WRAPPER
	CARGO_BUILD_RUSTC_WRAPPER GOFLAGS PS0 PS1 PS2 PS4 BASH_ENV ENV`)

// wordVars are the prompts and the startup file: the shell expands them.
var wordVars = set("PS0", "PS1", "PS2", "PS4", "BASH_ENV", "ENV")

// envPrograms reads the programs progVars name for a call: set in any of its
// layers (VAR=x, env, sudo) or earlier on the line.
func (r *reader) envPrograms(x *runCtx) {
	for _, name := range progVars {
		if v, ok := x.sc.vars[name]; ok {
			r.envProgram(name, v, x)
		}
	}
	for _, w := range slices.Concat(x.layers...) {
		if k, v, ok := strings.Cut(w, "="); ok && slices.Contains(progVars, k) {
			r.envProgram(k, arg{text: v, dynamic: strings.Contains(v, unknown.text)}, x)
		}
	}
}

// envProgram reads what variable name set to v runs, once a line (BASH_FUNC_x%%: a bash function).
func (r *reader) envProgram(name string, v arg, x *runCtx) {
	fn, isFn := strings.CutPrefix(name, "BASH_FUNC_")
	name = strings.ToUpper(name) // Windows takes Editor for EDITOR, also from Git Bash
	key := "env " + name + "=" + v.text
	if !isFn && !slices.Contains(progVars, name) || r.active[key] || wordVars[name] && !v.dynamic && !strings.ContainsAny(v.text, "$`") {
		return
	}
	r.active[key] = true
	y := *x
	y.stdin = input{}
	lines := []string{v.text}
	switch {
	case isFn:
		lines[0] = strings.TrimSuffix(fn, "%%") + " " + v.text
	case name == "GOFLAGS":
		r.toolRuns("go", r.splitString(v.text, x.sc), &y)
		return
	case wordVars[name]:
		lines[0] = ": " + v.text
	case name == "BROWSER" || name == "GH_BROWSER":
		lines = strings.Split(v.text, ":")
	case name == "LESSOPEN" || name == "LESSCLOSE":
		lines[0] = strings.TrimLeft(v.text, "|-")
	}
	for _, l := range lines {
		r.nested(arg{text: strings.ReplaceAll(l, "%s", "f"), dynamic: v.dynamic, download: v.download, subst: v.subst}, &y, nil)
	}
}

// winSetEnv is a variable PowerShell or cmd.exe sets for the rest of the
// line: read for the program it names, and kept as sh's export, upper case
// (Windows takes git_dir for GIT_DIR) with \ as /, so other checks see it.
func (r *reader) winSetEnv(name string, v arg, x *runCtx) {
	r.envProgram(name, v, x)
	if name = strings.ToUpper(name); name != "PWD" && syntax.ValidName(name) {
		v.text = strings.ReplaceAll(v.text, `\`, "/")
		x.sc.vars[name] = v
	}
}

// buildVars reads make's and configure's VAR=x arguments, and go env -w's
// (every later go command takes those: asked every time).
func (r *reader) buildVars(name string, args []arg, x *runCtx) {
	goEnv := name == "go" && len(args) > 1 && args[0].text == "env" && slices.ContainsFunc(args, func(a arg) bool {
		return slices.Contains([]string{"w", "w=true"}, strings.TrimLeft(a.text, "-"))
	})
	if !goEnv && !slices.Contains([]string{"make", "gmake", "bmake", "configure"}, name) {
		return
	}
	for _, a := range args {
		if k, v, ok := strings.Cut(a.text, "="); ok && isAssignment(a.text) && slices.Contains(progVars, k) {
			r.envProgram(k, arg{text: v, dynamic: a.dynamic}, x)
			if goEnv {
				r.out.must = "go env -w sets " + k + " for every later go command: it is asked every time"
			}
		}
	}
}

// rgConfig are the arguments in RIPGREP_CONFIG_PATH's file, which rg takes
// before its own (--pre too) unless --no-config.
func (r *reader) rgConfig(argv []arg, x *runCtx) []arg {
	v, ok := x.env("RIPGREP_CONFIG_PATH")
	if !ok || hasLong(argv[1:], "--no-config") {
		return nil
	}
	ps, known := resolve((&check{r: r}).tilde(v), x.sc.cwds)
	r.out.unclear = r.out.unclear || !known
	var out []arg
	r.readsProg(nil, false, ps...)
	for _, p := range ps {
		b, _ := readCapped(p, maxGitConfig)
		r.out.unclear = r.out.unclear || len(b) > maxGitConfig
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, arg{text: l})
			}
		}
	}
	return out
}

const maxGoSource = 16 << 20 // bytes one go generate reads

// goGenerate reads the //go:generate lines go [-C DIR] generate runs, for
// the deny list only; an import path or over maxGoSource bytes is unclear.
func (r *reader) goGenerate(args []arg, x *runCtx) {
	sc := x.sc.clone()
	for len(args) > 1 && args[0].text == "-C" {
		r.cd("cd", []arg{{text: "--"}, args[1]}, sc)
		args = args[2:]
	}
	if len(args) == 0 || args[0].text != "generate" || hasArg(args, "-n") { // -n prints, runs nothing
		return
	}
	pkgs := operands(skipValues(args[1:], "-run", "-skip", "-tags", "-mod", "-modfile", "-overlay", "-pkgdir", "-gcflags", "-ldflags",
		"-asmflags", "-gccgoflags", "-toolexec", "-exec", "-p", "-buildmode", "-compiler", "-installsuffix", "-pgo", "-coverpkg", "-covermode", "-o"))
	if len(pkgs) == 0 {
		pkgs = []arg{{text: "."}}
	}
	left := maxGoSource
	for _, p := range pkgs {
		dir, all := strings.CutSuffix(p.text, "/...")
		ps, known := resolve(arg{text: dir, dynamic: p.dynamic}, sc.cwds)
		if !known || !strings.HasPrefix(dir, ".") && !path.IsAbs(dir) && !strings.HasSuffix(dir, ".go") {
			r.out.unclear = true // an import path, or a directory hub cannot know
			continue
		}
		r.readsProg(isGoFile, false, ps...)
		for _, d := range ps {
			r.generateIn(d, all, &left)
		}
	}
}

// generateIn reads the //go:generate lines in root, a file or directory (its tree when all).
func (r *reader) generateIn(root string, all bool, left *int) {
	top := fromShellPath(root)
	_ = filepath.WalkDir(lookupName(top), func(p string, d fs.DirEntry, err error) error {
		switch name := filepath.Base(p); {
		case err != nil:
			return nil
		case d.IsDir() && p != top && (!all || name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(name, ".go"):
			return nil
		}
		b, _ := readCapped(toSlash(p), int64(*left))
		if *left -= len(b); *left < 0 {
			r.out.unclear = true
			return filepath.SkipAll
		}
		sub, sc := newReader()
		sc.cwds = []string{path.Dir(toSlash(p))}
		cmds := map[string][]arg{} // -command NAME CMD…, for the rest of the file
		var seen []string
		for _, l := range strings.Split(string(b), "\n") {
			line, ok := strings.CutPrefix(strings.TrimSuffix(l, "\r"), "//go:generate")
			if words := goWords(line, r.home); ok && len(words) > 0 && (line[0] == ' ' || line[0] == '\t') {
				seen = append(seen, line)
				if c, ok := cmds[words[0].text]; ok {
					words = append(slices.Clone(c), words[1:]...)
				}
				if words[0].text == "-command" && len(words) > 1 {
					cmds[words[1].text] = words[2:]
				} else {
					sub.run(words, &runCtx{sc: sc.clone()})
				}
			}
		}
		r.setDeny(sub.out.deny)
		if seen != nil { // an always holds for these lines, as for package.json's scripts
			r.out.repos = append(r.out.repos, top)
			r.out.hooks = append(r.out.hooks, fmt.Sprintf("%s %x", toSlash(p), sha256.Sum256([]byte(strings.Join(seen, "\n")))))
		}
		return nil
	})
}

func isGoFile(name string) bool { return strings.HasSuffix(name, ".go") }

// goWords splits a //go:generate line as go generate does (hub knows only $HOME and $DOLLAR).
func goWords(s, home string) []arg {
	var out []arg
	for s = strings.TrimLeft(s, " \t"); s != ""; s = strings.TrimLeft(s, " \t") {
		word := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })[0]
		end := len(word)
		if q, err := strconv.QuotedPrefix(s); err == nil && s[0] == '"' {
			word, _ = strconv.Unquote(q)
			end = len(q)
		}
		a := arg{}
		a.text = os.Expand(word, func(n string) string {
			switch n {
			case "HOME":
				return home
			case "DOLLAR":
				return "$"
			}
			a.dynamic = true
			return unknown.text
		})
		out, s = append(out, a), s[end:]
	}
	return out
}

// pkgManagers run package.json's scripts (node only with --run, deno with
// task); turbo, lerna, nx and npm-run-all those of the workspaces too.
var pkgManagers = set("npm", "pnpm", "yarn", "bun", "node", "deno", "turbo", "lerna", "nx", "npm-run-all", "run-s", "run-p")

// pkgScripts reads, for the deny list only, the scripts of the nearest
// package.json up from each directory and of its workspaces: those
// scriptsRun names, else all; at most maxGitFiles files.
func (r *reader) pkgScripts(name string, args []arg, x *runCtx) {
	if !pkgManagers[name] || name == "node" && !hasLong(args, "--run") || name == "deno" && (len(args) == 0 || args[0].text != "task") {
		return
	}
	sc := x.sc.clone()
	dirs, _ := (&check{r: r}).optValues(args, "C", "--prefix --dir --cwd", "")
	for _, d := range dirs {
		r.cd("cd", []arg{{text: "--"}, d}, sc)
	}
	if sc.cwds = unionDirs(x.sc.cwds, sc.cwds); sc.cwds == nil { // and here's: an option after -- is the script's
		r.out.unclear = true // npm --prefix "$D" test: a package.json hub cannot know
	}
	left, only := maxGitFiles, scriptsRun(name, texts(args))
	for _, d := range sc.cwds {
		r.pkgSets(operands(args), d)
		for p := d; ; p = path.Dir(p) {
			r.readsProg(nil, false, path.Join(p, "package.json"), path.Join(p, "deno.json"), path.Join(p, "deno.jsonc"))
			if slices.ContainsFunc(pkgFiles, func(f string) bool { return exists(path.Join(p, f), false) }) {
				r.readScripts(p, only, &left, true)
				break
			}
			if p == path.Dir(p) {
				break
			}
		}
	}
}

// scriptsRun are the scripts a command runs when it names one plainly (npm
// run build: it, pre and post); nil, every script, for anything else: an
// option before the name, a shorthand hub cannot tell from a built-in
// (pnpm build), and deno (a task's dependencies run too).
func scriptsRun(name string, w []string) []string {
	w = append(w, "", "")
	var s string
	switch {
	case name == "node" && w[0] == "--run",
		pkgManagers[name] && name != "deno" && slices.Contains([]string{"run", "run-script", "rum", "urn"}, w[0]):
		s = w[1]
	case pkgManagers[name] && slices.Contains([]string{"test", "t", "tst", "start", "stop", "restart"}, w[0]):
		s = w[0]
		if s == "t" || s == "tst" {
			s = "test"
		}
	}
	if s == "" || strings.HasPrefix(s, "-") || name == "turbo" || name == "lerna" || name == "nx" || strings.HasPrefix(name, "run-") || name == "npm-run-all" {
		return nil
	}
	out := []string{"pre" + s, s, "post" + s}
	if s == "restart" {
		out = append(out, "prestop", "stop", "poststop", "prestart", "start", "poststart")
	}
	return out
}

// pkgSets reads a script npm pkg set scripts.x=… or npm set-script writes
// for a later command to run. (npm config set is refused: writesCredStore.)
func (r *reader) pkgSets(ops []arg, dir string) {
	w := append(texts(ops), "", "", "")
	if w[0] == "set-script" {
		r.readScript(w[2], dir)
	}
	for _, kv := range w[2:] {
		if k, v, ok := strings.Cut(kv, "="); ok && w[0] == "pkg" && w[1] == "set" && strings.HasPrefix(k, "scripts.") {
			r.readScript(v, dir)
		}
	}
}

var pkgFiles = []string{"package.json", "deno.json", "deno.jsonc"}

// readScript reads a script (or deno task) run in dir as sh, cmd.exe and PowerShell would.
func (r *reader) readScript(v any, dir string) {
	line, ok := v.(string)
	if task, isTask := v.(map[string]any); isTask {
		line, ok = task["command"].(string)
	}
	if !ok {
		return
	}
	for _, read := range []func(*reader, *scope){
		func(sub *reader, sc *scope) { sub.script(line, sc, input{}) },
		func(sub *reader, sc *scope) { sub.cmdScript(firstLine(line), &runCtx{sc: sc}) },
		func(sub *reader, sc *scope) { sub.psScript(line, &runCtx{sc: sc}) },
	} {
		sub, ssc := newReader()
		for k := range r.active { // a script's npm run reads no package.json read here
			sub.active[k] = strings.HasPrefix(k, "pkg ")
		}
		ssc.cwds = []string{dir}
		read(sub, ssc)
		r.setDeny(sub.out.deny)
	}
}

// readScripts reads dir's package.json and deno.json scripts and, when ws,
// those of the workspaces they or pnpm-workspace.yaml list.
func (r *reader) readScripts(dir string, only []string, left *int, ws bool) {
	key := "pkg " + dir + " " + strings.Join(only, " ")
	if *left--; r.active[key] || *left < 0 {
		r.out.unclear = r.out.unclear || *left < 0
		return
	}
	r.active[key] = true
	var globs []string
	for _, f := range pkgFiles {
		b, err := readCapped(path.Join(dir, f), maxGitConfig)
		var pkg struct {
			Scripts, Tasks map[string]any
			Workspaces     json.RawMessage
		}
		if r.out.unclear = r.out.unclear || len(b) > maxGitConfig; err != nil || json.Unmarshal(b, &pkg) != nil {
			r.out.unclear = r.out.unclear || err == nil && f == "deno.jsonc" // comments: hub cannot read it, deno can
			continue                                                         // npm refuses it and runs nothing
		}
		for _, m := range []map[string]any{pkg.Scripts, pkg.Tasks} {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				if only == nil || slices.Contains(only, name) {
					r.readScript(m[name], dir)
				}
			}
		}
		// an always holds for these scripts only, as for git's hooks (repoKey)
		b, _ = json.Marshal([]map[string]any{pkg.Scripts, pkg.Tasks})
		r.out.repos = append(r.out.repos, dir)
		r.out.hooks = append(r.out.hooks, fmt.Sprintf("%s %x", path.Join(dir, f), sha256.Sum256(b)))
		var obj struct{ Packages []string }
		if json.Unmarshal(pkg.Workspaces, &obj.Packages) != nil {
			_ = json.Unmarshal(pkg.Workspaces, &obj) // yarn's {"packages": […]}
		}
		globs = append(globs, obj.Packages...)
	}
	var pnpm struct{ Packages []string }
	r.readsProg(nil, false, path.Join(dir, "pnpm-workspace.yaml"))
	if b, err := readCapped(path.Join(dir, "pnpm-workspace.yaml"), maxGitConfig); err == nil && yaml.Unmarshal(b, &pnpm) == nil {
		globs = append(globs, pnpm.Packages...)
	}
	if len(globs) > 0 && ws { // a workspace's package.json, one not there yet too
		r.readsProg(func(name string) bool { return slices.Contains(pkgFiles, name) }, false, dir)
	}
	for _, g := range globs {
		matches, _ := filepath.Glob(lookupName(fromShellPath(path.Join(dir, g))))
		for _, m := range matches {
			if ws && exists(path.Join(toSlash(m), "package.json"), false) {
				r.readScripts(toSlash(m), only, left, false)
			}
		}
	}
}
