package permission

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/safefile"
)

// A repository may come from a tarball or a folder committed with its .git, and its config
// names programs git runs (core.fsmonitor, a filter, an alias). hub reads the config itself
// rather than run git.

// gitKV is one key of a git config file: section and name in lower case, a subsection as written.
type gitKV struct{ key, val string }

const (
	maxGitConfig = 256 << 10 // bytes read of one config file
	maxGitFiles  = 64        // config files read for one repository: its own, its submodules, their includes
	maxGitIndex  = 64 << 20  // bytes read of an index, for its submodules
)

var (
	// gitLocal are the subcommands that reach no remote: gitRemoteKeys are not run.
	gitLocal = set("status", "diff", "log", "show", "add", "commit", "checkout", "switch", "restore", "reset", "branch", "tag",
		"stash", "rebase", "merge", "cherry-pick", "revert", "blame", "annotate", "grep", "ls-files", "ls-tree", "rev-parse",
		"rev-list", "mv", "rm", "clean", "describe", "shortlog", "reflog", "notes", "bisect", "worktree", "format-patch", "am",
		"apply", "init", "gc", "help", "version", "var", "cat-file", "show-ref", "for-each-ref", "range-diff", "cherry",
		"whatchanged", "check-ignore", "commit-tree", "hash-object", "update-index", "update-ref", "name-rev", "fsck")
	// gitCommands are git's builtins and the git-NAME programs every git ships: git runs one
	// before an alias of its name. Those a git may lack (lfs, svn, …) are not here.
	gitCommands = set(slices.Concat(slices.Collect(maps.Keys(gitLocal)), strings.Fields(`archive bisect--helper bugreport
		bundle check-attr check-mailmap check-ref-format checkout--worker checkout-index clone column commit-graph config
		count-objects credential credential-cache credential-store diagnose diff-files diff-index diff-tree difftool env--helper
		fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-repo fsck-objects fsmonitor--daemon get-tar-commit-id
		hook index-pack init-db interpret-trailers ls-remote mailinfo mailsplit maintenance merge-base merge-file merge-index
		merge-ours merge-recursive merge-subtree merge-tree mktag mktree multi-pack-index name-rev pack-objects pack-redundant
		pack-refs patch-id pickaxe prune prune-packed pull push read-tree receive-pack remote remote-ext remote-fd repack replace
		rerere send-pack show-branch show-index sparse-checkout stage stripspace submodule--helper symbolic-ref unpack-file
		unpack-objects update-server-info upload-archive upload-pack verify-commit verify-pack verify-tag write-tree replay refs
		backfill last-modified submodule filter-branch mergetool request-pull quiltimport web--browse difftool--helper`))...)
	gitRemoteKeys = []string{"core.sshcommand", "core.gitproxy", "core.askpass", "ssh.variant", "remote.", "url.", "credential."}
	// gitBang are keys whose value is a program when it starts with "!" (or is a path).
	gitBang = []string{"credential.helper", "credential.*.helper", "submodule.*.update"}
	// gitData are booleans, the keys of program sections that name no program, and git lfs's filters.
	gitData = set("", "true", "false", "yes", "no", "on", "off", "0", "1", "required", "format", "prompt", "trustexitcode",
		"keepbackup", "keeptemporaries", "writetotemp", "hideresolved", "guidefault", "allowedsignersfile", "mintrustlevel",
		"viewer", "from", "to", "cc", "bcc", "vcs", "hookspath", "git-lfs clean -- %f", "git-lfs smudge -- %f",
		"git-lfs smudge --skip -- %f", "git-lfs filter-process", "git-lfs filter-process --skip")
)

// gitRepoConfig is the config of the repository a git command in x uses, after the configs
// the line names (GIT_CONFIG_GLOBAL, HOME, …): none is the user's own.
func (r *reader) gitRepoConfig(x *runCtx, gitDir *arg) []gitKV {
	if v, ok := x.env("GIT_DIR"); ok && gitDir == nil {
		gitDir = &v
	}
	defer func(home string) { r.home = home }(r.home) // ~/ in an include is the line's HOME
	own := r.home
	if v, ok := x.env("HOME"); ok {
		if ps, _ := resolve((&check{r: r}).tilde(v), x.sc.cwds); len(ps) == 1 {
			r.home = ps[0]
		}
	}
	var dirs []string
	if gitDir != nil {
		dirs, _ = resolve(*gitDir, x.sc.cwds)
		for i, d := range dirs {
			if g, ok := gitFile(d); ok {
				dirs[i] = g
			}
		}
	} else {
		for _, d := range x.sc.cwds {
			dirs = append(dirs, findGitDir(d))
		}
		r.out.unclear = r.out.unclear || len(x.sc.cwds) == 0 // after cd "$D": any repository's config
	}
	if v, ok := x.env("GIT_COMMON_DIR"); ok { // git takes its config and hooks
		ps, known := resolve((&check{r: r}).tilde(v), x.sc.cwds)
		dirs, r.out.unclear = append(dirs, ps...), r.out.unclear || !known
	}
	var out []gitKV
	for _, f := range []struct{ env, file string }{ // in git's order: a later one wins
		{"GIT_CONFIG_SYSTEM", ""}, {"XDG_CONFIG_HOME", "git/config"}, {"HOME", ".gitconfig"}, {"GIT_CONFIG_GLOBAL", ""}} {
		v, ok := x.env(f.env) // a config the line names is not the user's own
		if !ok || v.text == own {
			continue
		}
		ps, known := resolve((&check{r: r}).tilde(v), x.sc.cwds)
		for _, p := range ps {
			out = append(out, r.gitFiles(path.Join(p, f.file))...)
		}
		r.out.unclear = r.out.unclear || !known
	}
	for _, d := range x.sc.cwds { // a .git a later command writes up to the work tree's, which git would find first
		for p := d; ; p = path.Dir(p) {
			r.readsProg(anyName, true, path.Join(p, ".git"))
			if _, err := os.Lstat(lookupName(fromShellPath(path.Join(p, ".git")))); err == nil || p == path.Dir(p) {
				break
			}
		}
	}
	for _, d := range slices.Concat(x.sc.cwds, dirs) { // a .git an archive or a copy put there earlier on the line: not on disk yet
		r.out.unclear = r.out.unclear || slices.ContainsFunc(r.out.fills, func(f string) bool {
			_, in := under(fromShellPath(f), fromShellPath(d))
			return in
		})
	}
	for _, g := range dirs {
		if g == "" {
			continue
		}
		r.out.repos = append(r.out.repos, gitCommon(g))
		r.readsProg(anyName, true, g, gitCommon(g))
		key := g + "\x00" + r.home
		if r.gitConfs[key] == nil {
			conf, left := r.gitFiles(path.Join(gitCommon(g), "config"), path.Join(g, "config.worktree")), maxGitFiles
			r.gitConfs[key] = slices.Concat(conf, r.gitFiles(r.gitModules(path.Join(gitCommon(g), "modules"), nil, &left)...), r.gitFiles(r.gitLinks(g, conf)...))
		}
		out = append(out, r.gitConfs[key]...)
		r.gitHooks(g, r.gitConfs[key], x)
	}
	return out
}

// gitHooks reads the repository's shell hooks for what the deny list refuses: git runs them
// for most commands. Only a refusal is kept: a hook the user installed adds nothing to ask.
func (r *reader) gitHooks(g string, conf []gitKV, x *runCtx) {
	dirs, left := hookDirs(g, conf), maxGitFiles
	for _, c := range r.gitModules(path.Join(gitCommon(g), "modules"), nil, &left) { // git submodule update checks each out
		dirs = append(dirs, path.Join(path.Dir(c), "hooks"))
	}
	for _, kv := range conf {
		if kv.key == "core.hookspath" {
			dirs = append(dirs, gitHooksPath("", kv.val, x)...)
		}
	}
	r.readHooks(dirs, x)
}

// gitHooksPath are the directories a core.hooksPath value may name: a relative one is from
// the work tree's top (root, or the top above one of x's directories).
func gitHooksPath(root, val string, x *runCtx) []string {
	var dirs []string
	if root != "" {
		dirs = append(dirs, joinShell(root, val))
	}
	for _, d := range x.sc.cwds {
		dirs = append(dirs, joinShell(gitWorkRoot(d), val))
	}
	return dirs
}

// readHooks reads the hooks in dirs once a line, maxGitConfig bytes at most; a hook's own git
// commands read no hooks.
func (r *reader) readHooks(dirs []string, x *runCtx) {
	for _, d := range dirs {
		if path.Base(d) == "_" { // husky's .husky/_/pre-commit runs .husky/pre-commit
			dirs = append(dirs, path.Dir(d))
		}
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	key := "git hooks " + strings.Join(dirs, "\x00")
	if r.active["git hooks"] || r.active[key] {
		return
	}
	r.active[key] = true
	left := maxGitConfig
	r.readsProg(anyName, true, dirs...)
	for _, dir := range dirs {
		hooks, _ := os.ReadDir(lookupName(fromShellPath(dir)))
		hooks = slices.DeleteFunc(hooks, func(h os.DirEntry) bool { return strings.HasSuffix(h.Name(), ".sample") })
		r.out.unclear = r.out.unclear || len(hooks) > maxGitFiles
		for _, h := range hooks[:min(len(hooks), maxGitFiles)] {
			b, err := readCapped(path.Join(dir, h.Name()), maxGitConfig)
			fi, _ := os.Stat(lookupName(fromShellPath(path.Join(dir, h.Name()))))
			sum := sha256.Sum256(b)
			r.out.hooks = append(r.out.hooks, fmt.Sprintf("%s %v %x", path.Join(dir, h.Name()), fi != nil && fi.Mode()&0o111 != 0, sum[:8]))
			if left -= len(b); left < 0 {
				r.out.unclear = true
				return
			}
			first, _, _ := strings.Cut(string(b), "\n")
			script := string(b)
			if prog, one, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(first, "#!")), " "); strings.HasPrefix(first, "#!") && progName(prog) == "env" {
				script = prog + " " + quoteWord(strings.TrimSpace(one)) + " hook\n" + script // the kernel runs env ONE-ARGUMENT HOOK: -S splits it
			}
			if err != nil || strings.HasPrefix(first, "#!") && !slices.ContainsFunc(strings.Fields(first[2:]), func(w string) bool { return shells[progName(w)] }) {
				script, _, _ = strings.Cut(script, "\n")
			}
			sub, sc := newReader()
			sub.active["git hooks"] = true
			sc.cwds = x.sc.cwds
			sub.script(script, sc, input{})
			r.setDeny(sub.out.deny)
			r.hookRunners(string(b), x)
		}
	}
}

// hookDirs are g's hooks directory, then those core.hooksPath names (a relative one from the
// work tree, or the one core.worktree moves it to).
func hookDirs(g string, conf []gitKV) []string {
	dirs, roots := []string{path.Join(gitCommon(g), "hooks")}, []string{workTree(g)}
	for _, kv := range conf {
		if kv.key == "core.worktree" {
			roots = append(roots, joinShell(g, kv.val))
		}
	}
	for _, kv := range conf {
		for _, root := range roots {
			if kv.key == "core.hookspath" {
				dirs = append(dirs, joinShell(root, kv.val))
			}
		}
	}
	return dirs
}

// gitWorkRoot is the nearest of dir and its parents holding a .git; dir when none.
func gitWorkRoot(dir string) string {
	for d := dir; d != path.Dir(d); d = path.Dir(d) {
		if _, err := os.Lstat(lookupName(fromShellPath(path.Join(d, ".git")))); err == nil {
			return d
		}
	}
	return dir
}

// workTree is g's work tree: a linked worktree's as its gitdir file names it, else g's parent.
func workTree(g string) string {
	if b, err := readCapped(path.Join(g, "gitdir"), maxGitConfig); err == nil {
		return path.Dir(toSlash(strings.TrimSpace(string(b))))
	}
	return strings.TrimSuffix(g, "/.git")
}

// findGitDir is the repository git discovers from dir: dir/.git, else dir itself when bare
// (safe.bareRepository is "all" unless set), else the same from its parent; "" when none.
func findGitDir(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if g, ok := gitFile(path.Join(d, ".git")); ok {
			return g
		}
		for _, g := range []string{path.Join(d, ".git"), d} {
			if isGitDir(g) {
				return g
			}
		}
		if d == path.Dir(d) {
			return ""
		}
	}
}

// isGitDir is git's is_git_directory, a little wider: a HEAD that is no directory (a dangling
// symlink is one), objects and refs in the common directory.
func isGitDir(g string) bool {
	head, err := os.Lstat(lookupName(fromShellPath(path.Join(g, "HEAD"))))
	return err == nil && !head.IsDir() && exists(path.Join(gitCommon(g), "objects"), false) && exists(path.Join(gitCommon(g), "refs"), false)
}

// exists reports a file at p (a directory, if dir), through symlinks.
func exists(p string, dir bool) bool {
	fi, err := os.Stat(lookupName(fromShellPath(p)))
	return err == nil && (!dir || fi.IsDir())
}

// gitCommon is the directory holding g's config, objects and refs (a worktree's commondir).
func gitCommon(g string) string {
	if b, err := readCapped(path.Join(g, "commondir"), maxGitConfig); err == nil {
		return joinShell(g, strings.TrimSpace(string(b)))
	}
	return g
}

// gitModules adds to files the configs of the submodules under dir, nested (a name may hold
// slashes): git status, diff and fetch run git in each. Past left directories, the line is unclear.
func (r *reader) gitModules(dir string, files []string, left *int) []string {
	ents, err := os.ReadDir(lookupName(fromShellPath(dir)))
	if *left -= min(len(ents), 1); err != nil || *left < 0 {
		r.out.unclear = r.out.unclear || *left < 0
		return files
	}
	for _, e := range ents {
		switch d := path.Join(dir, e.Name()); {
		case !exists(d, true): // a symlink to one is one
		case isGitDir(d) || exists(path.Join(d, "config"), false):
			files = r.gitModules(path.Join(d, "modules"), append(files, path.Join(d, "config")), left)
		default:
			files = r.gitModules(d, files, left)
		}
	}
	return files
}

func joinShell(dir, p string) string {
	if p = toSlash(p); path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

// gitLinks are the configs of the submodules in g's index (mode 160000; versions 2 to 4) as
// checked out in its work tree: git status and diff run git in each. An index past maxGitIndex
// leaves the line unclear.
func (r *reader) gitLinks(g string, conf []gitKV) []string {
	root, ok := strings.CutSuffix(g, "/.git")
	if b, err := readCapped(path.Join(g, "gitdir"), maxGitConfig); err == nil { // a linked worktree's: its .git file
		root, ok = path.Dir(joinShell(g, strings.TrimSpace(string(b)))), true
	}
	sha256 := false
	for _, kv := range conf {
		if kv.key == "core.worktree" { // a submodule's
			root, ok = joinShell(g, kv.val), true
		}
		sha256 = sha256 || kv == gitKV{"extensions.objectformat", "sha256"}
	}
	b, err := readCapped(path.Join(g, "index"), maxGitIndex)
	if !ok || err != nil || len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil
	}
	r.out.unclear = r.out.unclear || len(b) > maxGitIndex
	var out []string
	version, fixed, name := binary.BigEndian.Uint32(b[4:]), 62, "" // stat data, object id, flags
	if sha256 {
		fixed += 12
	}
	for at, n := 12, binary.BigEndian.Uint32(b[8:]); n > 0 && at+fixed <= len(b); n-- {
		start, mode, p := at, binary.BigEndian.Uint32(b[at+24:]), at+fixed
		if version >= 3 && b[at+fixed-2]&0x40 != 0 { // extended flags
			p += 2
		}
		strip := len(name) // versions 2 and 3 write each path whole
		if version == 4 {  // the bytes of the previous path to drop, as git's varint
			strip = int(b[min(p, len(b)-1)] & 127)
			for p++; p < len(b) && b[p-1]&128 != 0; p++ {
				strip = (strip+1)<<7 + int(b[p]&127)
			}
		}
		end := bytes.IndexByte(b[min(p, len(b)):], 0)
		if end < 0 || strip < 0 || strip > len(name) {
			break
		}
		name = name[:len(name)-strip] + string(b[p:p+end])
		if at = p + end + 1; version < 4 {
			at = start + (p+end-start+8)&^7 // NUL-padded to 8 bytes
		}
		if sub := path.Join(root, name); mode == 0o160000 {
			r.readsProg(anyName, true, path.Join(sub, ".git")) // a .git the line writes there: git runs in that repository
			if d, ok := gitFile(path.Join(sub, ".git")); ok {
				out = append(out, path.Join(gitCommon(d), "config"))
			} else if isGitDir(path.Join(sub, ".git")) {
				out = append(out, path.Join(sub, ".git", "config"))
			}
		}
	}
	return out
}

// gitFile is the git directory the .git file p names (or GIT_DIR, followed the same way).
func gitFile(p string) (string, bool) {
	b, err := readCapped(p, maxGitConfig)
	g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	return joinShell(path.Dir(p), strings.TrimSpace(g)), err == nil && ok
}

// readCapped reads limit bytes and one more of a regular file (a planted FIFO is not opened).
func readCapped(p string, limit int64) ([]byte, error) {
	f, err := safefile.Open(lookupName(fromShellPath(p)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// gitFiles are the keys of files and their includes, in order (a later one wins), within
// maxGitFiles files and maxGitConfig bytes all together.
func (r *reader) gitFiles(files ...string) []gitKV {
	left, out := gitLeft{maxGitFiles, maxGitConfig}, []gitKV{}
	for _, f := range files {
		out = r.readGitConfig(f, &left, out)
	}
	return out
}

type gitLeft struct{ files, bytes int }

// readGitConfig appends file's keys to out, with those of its includes in their place
// (includeIf whatever the condition). A file past the bounds leaves the line unclear.
func (r *reader) readGitConfig(file string, left *gitLeft, out []gitKV) []gitKV {
	r.readsProg(nil, true, file)
	b, err := readCapped(file, maxGitConfig)
	if err != nil {
		r.out.unclear = r.out.unclear || exists(file, false) && file != "/dev/null" // a FIFO, /dev/stdin: git reads what hub cannot
		return out
	}
	if left.files--; left.files < 0 || len(b) > left.bytes {
		r.out.unclear = true
		b = b[:max(0, min(len(b), left.bytes))]
	}
	if left.bytes -= len(b); left.files < 0 {
		return out
	}
	for _, kv := range parseGitConfig(string(b)) {
		out = append(out, kv)
		if kv.key == "include.path" || strings.HasPrefix(kv.key, "includeif.") && strings.HasSuffix(kv.key, ".path") {
			p := kv.val
			if rest, ok := strings.CutPrefix(p, "~/"); ok {
				p = path.Join(r.home, rest)
			}
			out = r.readGitConfig(joinShell(path.Dir(file), p), left, out)
		}
	}
	return out
}

// parseGitConfig reads git's ini syntax as config.c does: characters, not lines
// ([a][core]pager=x is core.pager). A line git refuses is skipped (git refuses the whole
// file and runs nothing: reading on costs a question at most).
func parseGitConfig(src string) []gitKV {
	var out []gitKV
	s, section := strings.TrimPrefix(strings.ReplaceAll(src, "\r\n", "\n"), "\ufeff"), ""
	for i := 0; i < len(s); {
		ok := true
		switch c := s[i]; {
		case gitSpace(c):
			i++
		case c == '[':
			if sec, next, good := gitSection(s, i+1); good {
				section, i = sec, next
			} else {
				ok = false
			}
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			j := gitSpan(s, i, gitKeyChar)
			name, val := section+"."+strings.ToLower(s[i:j]), ""
			switch j = gitSpan(s, j, func(c byte) bool { return c == ' ' || c == '\t' }); {
			case j < len(s) && s[j] == '=':
				if val, s, ok = gitValue(s[j+1:]); ok {
					out = append(out, gitKV{name, val})
				}
				i, ok = 0, true // gitValue ended the line
			case j < len(s) && s[j] != '\n':
				ok = false
			default:
				out, i = append(out, gitKV{name, val}), j+1
			}
		default:
			ok = false // a comment, or a line git refuses
		}
		if !ok {
			_, s, _ = strings.Cut(s[i:], "\n")
			i = 0
		}
	}
	return out
}

func gitSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func gitKeyChar(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '-'
}

func gitSpan(s string, i int, keep func(byte) bool) int {
	for i < len(s) && keep(s[i]) {
		i++
	}
	return i
}

// gitSection reads a section header from after its "[": the section, the index after its "]",
// false when git refuses it.
func gitSection(s string, i int) (string, int, bool) {
	j := gitSpan(s, i, func(c byte) bool { return gitKeyChar(c) || c == '.' })
	name := strings.ToLower(s[i:j])
	if j < len(s) && s[j] == ']' {
		return name, j + 1, name != ""
	}
	k := gitSpan(s, j, func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' })
	if k == j || k >= len(s) || s[k] != '"' {
		return "", 0, false
	}
	var sub strings.Builder
	for j = k + 1; j < len(s) && s[j] != '"'; j++ {
		if s[j] == '\\' {
			j++
		}
		if j >= len(s) || s[j] == '\n' {
			return "", 0, false
		}
		sub.WriteByte(s[j])
	}
	return name + "." + sub.String(), j + 2, j+1 < len(s) && s[j+1] == ']'
}

// gitValue reads a value as git does from after its "=" (a NUL ends it): the value, the text
// after it (the next line when git refuses it), and whether git takes it.
func gitValue(s string) (string, string, bool) {
	var b strings.Builder
	quoted, comment, space := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			v, _, _ := strings.Cut(b.String(), "\x00")
			return v, s[i+1:], !quoted
		case comment:
		case gitSpace(c) && !quoted:
			space += min(b.Len(), 1)
		case (c == '#' || c == ';') && !quoted:
			comment = true
		default:
			b.WriteString(strings.Repeat(" ", space))
			space = 0
			switch {
			case c == '"':
				quoted = !quoted
			case c != '\\':
				b.WriteByte(c)
			case i+1 < len(s): // a backslash ending the file is dropped
				i++
				e, ok := map[byte]string{'n': "\n", 't': "\t", 'b': "\b", '\n': "", '\\': `\`, '"': `"`}[s[i]]
				if !ok {
					_, rest, _ := strings.Cut(s[i:], "\n")
					return "", rest, false
				}
				b.WriteString(e)
			}
		}
	}
	v, _, _ := strings.Cut(b.String(), "\x00")
	return v, "", !quoted
}

// userGitConf is the user's own git config (XDG's, then ~/.gitconfig).
func (r *reader) userGitConf() []gitKV {
	if r.gitConfs["~"] == nil {
		xdg := cmp.Or(toSlash(os.Getenv("XDG_CONFIG_HOME")), path.Join(r.home, ".config"))
		r.gitConfs["~"] = r.gitFiles(path.Join(xdg, "git/config"), path.Join(r.home, ".gitconfig"))
	}
	return r.gitConfs["~"]
}

// gitAlias is the alias git runs for sub: from -c or git config on the line, the repository's
// config, or the user's own.
func (r *reader) gitAlias(sub string, repo []gitKV) (string, bool) {
	sub = strings.ToLower(sub)
	if def, ok := r.gitAliases[sub]; ok {
		return def, true
	}
	def, ok, theirs := "", false, len(r.userGitConf())
	for i, kv := range slices.Concat(r.gitConfs["~"], repo) { // the last one wins, as in git
		if kv.key == "alias."+sub {
			def, ok = kv.val, true
			r.out.must = cmp.Or(r.out.must, gitAsked(kv, i >= theirs))
		}
	}
	return def, ok
}

// gitAsked is why git running kv's value from a config not the user's (repo) is asked.
func gitAsked(kv gitKV, repo bool) string {
	if !repo {
		return ""
	}
	return "git runs " + kv.val + " as a git config that is not yours says (" + kv.key + "): it is asked every time"
}

// gitRepoRunsFor reads the programs repo's config has git run for sub as run here.
func (r *reader) gitRepoRunsFor(sub string, repo []gitKV, x *runCtx) {
	local := gitLocal[sub] && !slices.ContainsFunc(repo, func(kv gitKV) bool { // a partial clone fetches what a local command needs
		return kv.key == "extensions.partialclone" || strings.HasPrefix(kv.key, "remote.") && strings.HasSuffix(kv.key, ".promisor")
	})
	corrects := !gitCommands[sub] && slices.ContainsFunc(repo, func(kv gitKV) bool { // help.autocorrect: git runs the nearest command or alias
		return kv.key == "help.autocorrect" && !slices.Contains([]string{"0", "false", "off", "no", "never", "show"}, strings.ToLower(kv.val))
	})
	for _, kv := range repo {
		name := kv.key[strings.LastIndex(kv.key, ".")+1:]
		switch {
		case corrects && strings.HasPrefix(kv.key, "alias."):
			r.out.must = cmp.Or(r.out.must, gitAsked(kv, true))
			line := "git " + kv.val
			if def, ok := strings.CutPrefix(kv.val, "!"); ok {
				line = def
			}
			r.nested(arg{text: line}, x, nil)
		case local && gitProgramKey(kv.key, gitRemoteKeys): // how to reach a remote: a local command reaches none
		case strings.HasPrefix(kv.key, "url.") || name == "url" || name == "pushurl":
			if strings.Contains(kv.key+kv.val, "ext::") {
				r.out.must = cmp.Or(r.out.must, gitAsked(kv, true))
			}
			r.gitURL(kv.key, arg{text: kv.val}, x)
		case gitData[strings.ToLower(kv.val)] || gitData[name]: // a boolean, or a key of a program's section that is no program
		case gitProgramKey(kv.key, gitBang) && !strings.HasPrefix(kv.val, "!") && !strings.Contains(kv.val, "/"): // git-credential-NAME, a submodule update mode
		case gitProgramKey(kv.key, gitProgramKeys[3:]) || gitProgramKey(kv.key, slices.Concat(gitBang, []string{"core.askpass"})):
			r.out.must = cmp.Or(r.out.must, gitAsked(kv, true))
			r.nested(arg{text: strings.TrimPrefix(kv.val, "!")}, x, nil)
		}
	}
}

// gitURL reads an ext:: remote in a value or a url.BASE key (url.ext::cmd.insteadOf) as run here.
func (r *reader) gitURL(key string, v arg, x *runCtx) {
	if base := key[min(4, len(key)):]; strings.EqualFold(key[:len(key)-len(base)], "url.") && strings.Contains(base, ".") {
		r.ext(arg{text: base[:strings.LastIndex(base, ".")], dynamic: v.dynamic}, x)
	}
	r.ext(v, x)
}

// ext reads an ext:: remote's command ("% " is a space in a word): git runs it with
// protocol.ext.allow.
func (r *reader) ext(a arg, x *runCtx) {
	cmd, ok := strings.CutPrefix(a.text, "ext::")
	if !ok {
		return
	}
	var words []arg
	for _, w := range strings.Fields(strings.ReplaceAll(cmd, "% ", "\x01")) {
		words = append(words, arg{text: strings.ReplaceAll(w, "\x01", " "), dynamic: a.dynamic})
	}
	r.run(words, x.fork())
}
