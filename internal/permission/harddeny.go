package permission

import (
	"cmp"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// HardDeny reports whether req hits the built-in deny list, and why. No
// rule, policy, hook or "always" answer lifts these, on any path: the
// native loop, the ACP relay and hub run's --approve.
func HardDeny(req Request) (string, bool) {
	if req.Command != "" {
		if v := checkCommand(req.Command, 0); v.deny != "" {
			return v.deny, true
		}
	}
	if req.Path != "" && req.Kind != "read" && req.Kind != "search" && IsEnvFile(req.Path) {
		return "writing .env files is never allowed (secrets)", true
	}
	return "", false
}

// Unclear reports a command whose program hub cannot know before the
// shell runs it ($(…) or $VAR as the program, eval of a variable, a line
// it cannot read). Such a command is asked about every time: no "always"
// answer covers it.
func Unclear(command string) bool {
	return command != "" && checkCommand(command, 0).unclear
}

// IsEnvFile reports whether path names a dotenv file (.env, .env.local, …,
// in any letter case, since macOS and Windows file systems ignore case)
// other than a committed template (.env.example, .env.sample, …).
func IsEnvFile(p string) bool {
	base := strings.ToLower(filepath.Base(strings.Trim(p, `"'`)))
	if base != ".env" && !strings.HasPrefix(base, ".env.") {
		return false
	}
	switch base {
	case ".env.example", ".env.sample", ".env.template", ".env.dist":
		return false
	}
	return true
}

// The deny list, as data: each rule looks at one simple command.
type denyRule struct {
	why   string
	match func(c cmdView) bool
}

// cmdView is one simple command with its wrappers stripped.
type cmdView struct {
	prog      string // base name, lower case
	args      []word
	redirects []string
}

var denyRules = []denyRule{
	{"recursive delete of /, the home directory or a system directory is never allowed", rmRoot},
	{"deleting from /, the home directory or a system directory with find is never allowed", findDeleteRoot},
	{"changing owner or mode of /, the home directory or a system directory recursively is never allowed", chmodRoot},
	{"writing raw devices is never allowed", rawDevice},
	{"formatting file systems (mkfs) is never allowed", func(c cmdView) bool { return strings.HasPrefix(c.prog, "mkfs") }},
	{"writing .env files is never allowed (secrets)", writesEnv},
	{"force-pushing to main or master is never allowed", forcePushMain},
}

// shellVerdict is what the deny list says of a command line.
type shellVerdict struct {
	deny    string // why it is denied; "" when it is not
	unclear bool   // hub cannot tell what runs
}

var (
	downloaders  = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "xh": true}
	shells       = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ash": true, "busybox": true}
	interpreters = map[string]bool{"python": true, "python3": true, "python2": true, "perl": true, "ruby": true, "node": true, "php": true, "deno": true, "bun": true}
	forkBomb     = regexp.MustCompile(`([^\s(){};|&]+)\(\)\{([^}]*)\}`)
)

// checkCommand applies the deny list to a command line and to every
// command nested in it.
func checkCommand(cmd string, depth int) shellVerdict {
	if depth > 5 {
		return shellVerdict{unclear: true}
	}
	if isForkBomb(cmd) {
		return shellVerdict{deny: "fork bombs are never allowed"}
	}
	p := parseShell(cmd)
	v := shellVerdict{unclear: p.bad}
	downloadSubst := false
	for _, n := range p.nested {
		nv := checkCommand(n, depth+1)
		if nv.deny != "" {
			return nv
		}
		v.unclear = v.unclear || nv.unclear
		downloadSubst = downloadSubst || isDownload(n)
	}
	downloaded := map[string]bool{}
	pipeDownload := false
	for i, sc := range p.cmds {
		if sc.pipeStart {
			pipeDownload = false
		}
		c, unclear := view(sc)
		v.unclear = v.unclear || unclear
		if c.prog == "" {
			if why := redirectDeny(sc.redirects); why != "" {
				return shellVerdict{deny: why}
			}
			continue
		}
		if unclear && downloadSubst {
			return shellVerdict{deny: "running downloaded code is never allowed"}
		}
		for _, r := range denyRules {
			if r.match(c) {
				return shellVerdict{deny: r.why}
			}
		}
		if why := runsDownload(c, pipeDownload, downloaded, p.procSubst[i]); why != "" {
			return shellVerdict{deny: why}
		}
		if script, ok := shellScript(c); ok {
			if downloadSubst && script.dynamic {
				return shellVerdict{deny: "running downloaded code is never allowed"}
			}
			sv := checkCommand(script.text, depth+1)
			if sv.deny != "" {
				return sv
			}
			v.unclear = v.unclear || sv.unclear
		}
		if c.prog == "eval" {
			if downloadSubst && anyDynamic(c.args) {
				return shellVerdict{deny: "running downloaded code is never allowed"}
			}
			sv := checkCommand(joinWords(c.args), depth+1)
			if sv.deny != "" {
				return sv
			}
			v.unclear = v.unclear || sv.unclear || anyDynamic(c.args)
		}
		if downloaders[c.prog] {
			pipeDownload = true
			for _, f := range downloadTargets(c) {
				downloaded[cleanFile(f)] = true
			}
		}
	}
	return v
}

// view strips assignments and wrappers (sudo, env, nohup, xargs, …) off a
// simple command; unclear when the program is computed.
func view(sc simple) (cmdView, bool) {
	argv := sc.argv
	for len(argv) > 0 {
		w := argv[0]
		name := strings.ToLower(path.Base(w.text))
		switch {
		case !w.dynamic && isAssignment(w.text):
			argv = argv[1:]
		case name == "sudo" || name == "doas":
			argv = skipFlags(argv[1:], "-u", "-g", "-h", "-p", "-C", "-U")
		case name == "env":
			argv = skipFlags(argv[1:], "-u", "-C", "-S")
		case name == "nice":
			argv = skipFlags(argv[1:], "-n")
		case name == "timeout":
			argv = skipFlags(argv[1:], "-s", "-k")
			if len(argv) > 0 {
				argv = argv[1:] // the duration
			}
		case name == "xargs":
			argv = skipFlags(argv[1:], "-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a")
		case name == "nohup", name == "command", name == "exec", name == "time", name == "stdbuf", name == "builtin", name == "unbuffer":
			argv = skipFlags(argv[1:])
		default:
			c := cmdView{prog: name, args: argv[1:], redirects: sc.redirects}
			return c, w.dynamic
		}
	}
	return cmdView{redirects: sc.redirects}, false
}

func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for _, r := range s[:eq] {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// skipFlags drops leading flags (and the values of those in valued) and
// assignments (env's NAME=value).
func skipFlags(argv []word, valued ...string) []word {
	for len(argv) > 0 {
		t := argv[0].text
		switch {
		case t == "--":
			return argv[1:]
		case strings.HasPrefix(t, "-") && len(t) > 1:
			argv = argv[1:]
			for _, v := range valued {
				if t == v && len(argv) > 0 {
					argv = argv[1:]
				}
			}
		case isAssignment(t):
			argv = argv[1:]
		default:
			return argv
		}
	}
	return argv
}

// shellScript is the script of `sh -c 'script'` (any -c combination).
func shellScript(c cmdView) (word, bool) {
	if !shells[c.prog] {
		return word{}, false
	}
	for i, a := range c.args {
		if strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "c") && i+1 < len(c.args) {
			return c.args[i+1], true
		}
	}
	return word{}, false
}

// runsDownload reports a shell or interpreter fed with downloaded code: by
// a pipe, a process substitution, or a file a download wrote earlier.
func runsDownload(c cmdView, piped bool, downloaded map[string]bool, procSubst []string) string {
	const why = "running downloaded code is never allowed"
	runner := shells[c.prog] || interpreters[c.prog]
	if runner && piped {
		return "piping a download into a shell is never allowed"
	}
	if runner {
		for _, ps := range procSubst {
			if isDownload(ps) {
				return why
			}
		}
		for _, a := range c.args {
			if !strings.HasPrefix(a.text, "-") && downloaded[cleanFile(a.text)] {
				return why
			}
		}
	}
	if downloaded[cleanFile(c.prog)] {
		return why
	}
	return ""
}

func isDownload(cmd string) bool {
	for _, sc := range parseShell(cmd).cmds {
		if c, _ := view(sc); downloaders[c.prog] {
			return true
		}
	}
	return false
}

// downloadTargets are the files a download writes (-o, -O, redirects).
func downloadTargets(c cmdView) []string {
	out := append([]string{}, c.redirects...)
	for i, a := range c.args {
		switch {
		case (a.text == "-o" || a.text == "-O" || a.text == "--output" || a.text == "--output-document") && i+1 < len(c.args):
			out = append(out, c.args[i+1].text)
		case strings.HasPrefix(a.text, "--output="), strings.HasPrefix(a.text, "--output-document="):
			_, v, _ := strings.Cut(a.text, "=")
			out = append(out, v)
		}
	}
	return out
}

func cleanFile(f string) string { return path.Clean(strings.TrimPrefix(f, "./")) }

func isForkBomb(cmd string) bool {
	compact := strings.Join(strings.Fields(cmd), "")
	for _, m := range forkBomb.FindAllStringSubmatch(compact, -1) {
		name, body := m[1], m[2]
		if strings.Contains(body, name+"|"+name) || strings.Contains(body, name+"&") {
			return true
		}
	}
	return false
}

// rootLike reports /, the home directory, a user's home or a top-level
// system directory, after resolving ~, $HOME and "..".
func rootLike(t string) bool {
	t = strings.Trim(t, `"'`)
	home, _ := os.UserHomeDir()
	for _, h := range []string{"${HOME}", "$HOME", "~"} {
		if t == h || strings.HasPrefix(t, h+"/") {
			t = "/HOME" + strings.TrimPrefix(t, h)
		}
	}
	if !strings.HasPrefix(t, "/") {
		return false
	}
	t = path.Clean(t)
	if strings.HasSuffix(t, "/*") { // everything in it
		t = cmp.Or(strings.TrimSuffix(t, "/*"), "/")
	}
	if t == "/" || t == "/HOME" || (home != "" && t == path.Clean(home)) {
		return true
	}
	switch t {
	case "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root",
		"/sbin", "/sys", "/usr", "/var", "/Users", "/System", "/Library", "/Applications", "/private":
		return true
	}
	dir := path.Dir(t)
	return dir == "/home" || dir == "/Users"
}

func hasRecursive(args []word) bool {
	for _, a := range args {
		t := a.text
		if t == "--recursive" || (strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "rR")) {
			return true
		}
	}
	return false
}

func operands(args []word) []word {
	var out []word
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") {
			out = append(out, a)
		}
	}
	return out
}

func rmRoot(c cmdView) bool {
	if c.prog != "rm" {
		return false
	}
	for _, a := range c.args {
		if a.text == "--no-preserve-root" {
			return true
		}
	}
	if !hasRecursive(c.args) {
		return false
	}
	for _, o := range operands(c.args) {
		if rootLike(o.text) {
			return true
		}
	}
	return false
}

func findDeleteRoot(c cmdView) bool {
	if c.prog != "find" {
		return false
	}
	deletes := false
	for i, a := range c.args {
		switch a.text {
		case "-delete":
			deletes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(c.args) && (path.Base(c.args[i+1].text) == "rm" || path.Base(c.args[i+1].text) == "shred") {
				deletes = true
			}
		}
	}
	if !deletes {
		return false
	}
	for _, a := range c.args {
		if strings.HasPrefix(a.text, "-") || a.text == "!" || a.text == "(" {
			break // the expression starts
		}
		if rootLike(a.text) {
			return true
		}
	}
	return false
}

func chmodRoot(c cmdView) bool {
	if c.prog != "chmod" && c.prog != "chown" && c.prog != "chgrp" {
		return false
	}
	if !hasRecursive(c.args) {
		return false
	}
	for _, o := range operands(c.args)[1:] { // the first is the mode or owner
		if rootLike(o.text) {
			return true
		}
	}
	return false
}

var blockDevice = regexp.MustCompile(`^/dev/(sd|nvme|hd|vd|xvd|disk|rdisk|mmcblk|md|dm-|mapper/|loop)`)

func rawDevice(c cmdView) bool {
	for _, r := range c.redirects {
		if blockDevice.MatchString(r) {
			return true
		}
	}
	switch c.prog {
	case "dd":
		for _, a := range c.args {
			if strings.HasPrefix(a.text, "of=") && blockDevice.MatchString(strings.TrimPrefix(a.text, "of=")) {
				return true
			}
		}
	case "shred", "wipefs", "fdisk", "sfdisk", "parted", "blkdiscard":
		for _, o := range operands(c.args) {
			if blockDevice.MatchString(o.text) {
				return true
			}
		}
	}
	return false
}

func redirectDeny(targets []string) string {
	for _, r := range targets {
		if IsEnvFile(r) {
			return "writing .env files is never allowed (secrets)"
		}
		if blockDevice.MatchString(r) {
			return "writing raw devices is never allowed"
		}
	}
	return ""
}

// writesEnv reports a command that writes a dotenv file: a redirect,
// tee, cp/mv/install onto one, sed -i, truncate or dd into one.
func writesEnv(c cmdView) bool {
	for _, r := range c.redirects {
		if IsEnvFile(r) {
			return true
		}
	}
	ops := operands(c.args)
	switch c.prog {
	case "tee", "truncate", "touch":
		for _, o := range ops {
			if IsEnvFile(o.text) {
				return true
			}
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		return len(ops) > 1 && IsEnvFile(ops[len(ops)-1].text)
	case "sed", "perl":
		inPlace := false
		for _, a := range c.args {
			inPlace = inPlace || strings.HasPrefix(a.text, "-i") || a.text == "--in-place" || (c.prog == "perl" && strings.Contains(a.text, "i") && strings.HasPrefix(a.text, "-"))
		}
		if inPlace {
			for _, o := range ops {
				if IsEnvFile(o.text) {
					return true
				}
			}
		}
	case "dd":
		for _, a := range c.args {
			if strings.HasPrefix(a.text, "of=") && IsEnvFile(strings.TrimPrefix(a.text, "of=")) {
				return true
			}
		}
	}
	return false
}

func forcePushMain(c cmdView) bool {
	if c.prog != "git" || len(c.args) == 0 {
		return false
	}
	args := c.args
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") { // git -C dir …
		if args[0].text == "-C" || args[0].text == "-c" {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 || args[0].text != "push" {
		return false
	}
	force := false
	var refs []string
	for _, a := range args[1:] {
		switch {
		case a.text == "--force" || a.text == "-f" || (strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "f")):
			force = true
		case strings.HasPrefix(a.text, "+"):
			force = true
			refs = append(refs, a.text[1:])
		case !strings.HasPrefix(a.text, "-"):
			refs = append(refs, a.text)
		}
	}
	if !force {
		return false
	}
	for _, r := range refs {
		dst := r
		if _, after, ok := strings.Cut(r, ":"); ok {
			dst = after
		}
		dst = strings.TrimPrefix(dst, "refs/heads/")
		if dst == "main" || dst == "master" {
			return true
		}
	}
	return false
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

func anyDynamic(ws []word) bool {
	for _, w := range ws {
		if w.dynamic {
			return true
		}
	}
	return false
}
