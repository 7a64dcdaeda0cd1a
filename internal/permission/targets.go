package permission

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
)

// targets lists the files a command line names (operands, a flag's "=value", "@file", redirect
// targets), absolute, globs also as their matches; one hub cannot know is unknownTarget.
// changed are those the line may change.
func (rd *reading) targets() (all, changed []string) {
	if rd.unclear {
		all = append(all, unknownTarget)
	}
	add := func(a arg, cwds []string, changes bool) {
		paths, ok := resolve(a, cwds)
		if !ok {
			paths = []string{unknownTarget}
		}
		for _, p := range paths {
			ps := []string{fromShellPath(p)}
			if a.glob && ok {
				matches, _ := filepath.Glob(lookupName(ps[0]))
				ps = append(ps, matches[:min(len(matches), maxGlobMatches)]...)
			}
			all = append(all, ps...)
			if changes && a.under { // it stands for the files under it: in a .git, a config among them
				ps = append(ps, filepath.Join(ps[0], "config"))
			}
			if changes {
				changed = append(changed, ps...)
			}
		}
	}
	for _, c := range rd.calls {
		out, in := operandArgs(c)
		for _, a := range slices.Concat(out, c.stdin.files) {
			add(a, c.cwds, !readsOnly(c))
		}
		for _, a := range in {
			add(a, c.cwds, false)
		}
		for _, r := range c.redirs { // here-documents are stdin, not here
			add(r.target, c.cwds, r.op.String() != "<")
		}
		if setsGitProgram(c) || gitCode(c) { // it writes (or may) the repository's (or --global's) config
			add(arg{text: ".git/config"}, c.cwds, true)
		}
	}
	return all, changed
}

// fileReaders only read the files they name (not less, tree or sort: -o writes one; not xxd).
var fileReaders = set("cat", "ls", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "stat", "file", "diff", "cmp", "du", "nl",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "od", "hexdump", "strings", "readlink", "realpath", "find")

// gitCode reports inline interpreter code naming a .git: hub cannot tell if it writes a hook.
func gitCode(c *call) bool {
	i := slices.IndexFunc(c.argv, func(a arg) bool { return interpreters[strings.TrimRight(progName(a.text), "0123456789.")] })
	code, _ := interpCode(c.argv[max(i, 0):])
	return i >= 0 && gitName().MatchString(code)
}

var gitName = lazyRE(`(?i)\.git(?:[^\w-]|$)|git~1`)

// readsOnly reports a fileReaders call (find without -delete or -fprint; -exec's is a call too).
func readsOnly(c *call) bool {
	return fileReaders[c.prog()] && !(c.prog() == "find" && slices.ContainsFunc(c.argv, func(a arg) bool {
		return a.dynamic || a.text == "-delete" || strings.HasPrefix(a.text, "-fprint") || a.text == "-fls"
	}))
}

// operandArgs are the words of c that may name files; in are those dd only reads (if=FILE).
func operandArgs(c *call) (out, in []arg) {
	if len(c.argv) < 2 {
		return nil, nil
	}
	for _, a := range c.argv[1:] {
		input := c.prog() == "dd" && strings.HasPrefix(a.text, "if=")
		if !a.dynamic && (strings.HasPrefix(a.text, "-") || c.prog() == "dd") { // dd if=FILE of=FILE
			_, v, ok := strings.Cut(a.text, "=")
			if !ok || v == "" {
				continue
			}
			if v == "~" || strings.HasPrefix(v, "~/") { // bash expands a tilde after "="
				v = homeDir() + v[1:]
			}
			a.text = v
		}
		a.text = strings.TrimPrefix(strings.TrimPrefix(a.text, "@"), "file://")
		if input {
			in = append(in, a)
		} else {
			out = append(out, a)
		}
	}
	return out, in
}

// fromShellPath turns the reader's slash paths back into the OS's (/c/x is C:\x on Windows).
func fromShellPath(p string) string {
	if runtime.GOOS == "windows" && len(p) >= 2 && p[0] == '/' && (len(p) == 2 || p[2] == '/') {
		p = strings.ToUpper(p[1:2]) + ":" + p[2:]
	}
	return filepath.Clean(filepath.FromSlash(p))
}

// lookupName is what a file-system call is given for p: "" for a path on another machine, as
// Windows sends the user's NTLM hash to \\host\share on a mere lookup. Tests record it.
var lookupName = func(p string) string {
	if remote(p) {
		return ""
	}
	return p
}

func remote(p string) bool {
	vol, _ := fspath.SplitPath("windows", p)
	return runtime.GOOS == "windows" && len(vol) > 2 && strings.HasPrefix(vol, `\\`) && vol[2] != '\\' // a host: not // nor ///usr
}

// unknownTarget stands for an operand hub cannot know: no "always" covers a command with one.
const unknownTarget = "\x00unknown"

const maxGlobMatches = 1000

func absTarget(t, home, cwd string) string {
	t = strings.TrimPrefix(t, "file://")
	switch {
	case t == "~":
		t = home
	case strings.HasPrefix(t, "~/"):
		t = filepath.Join(home, t[2:])
	}
	if !filepath.IsAbs(t) && cwd != "" {
		t = filepath.Join(cwd, t)
	}
	return filepath.Clean(t)
}

var secretNames = set(".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".vault-token",
	"credentials.json", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk")

var keyExts = set(".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk")

// IsSecretFile reports a dotenv file, a private key or a file of a credential store, by its name
// or by the file a symlink names.
func IsSecretFile(p string) bool {
	if p == "" || p == unknownTarget {
		return false
	}
	home, _ := os.UserHomeDir()
	if _, file, rev := strings.Cut(filepath.Base(p), ":"); rev && file != "" && IsSecretFile(filepath.Join(filepath.Dir(p), file)) {
		return true // git show HEAD:.env, C:.env
	}
	return secretAt(p, home) || secretAt(resolveLinks(p), resolveLinks(home))
}

func secretAt(p, home string) bool {
	parts := winNames(p)
	base := parts[len(parts)-1]
	switch {
	case IsEnvFile(p), secretNames[base], keyExts[filepath.Ext(base)]:
		return true
	case strings.HasSuffix(base, ".pub"), base == "known_hosts":
		return false
	case strings.HasPrefix(base, "id_") && len(parts) > 1 && names(parts[len(parts)-2], ".ssh"):
		return true
	}
	return inCredentialDir(p, home)
}

// inCredentialDir reports p inside a credential store of home: everything there is a secret.
func inCredentialDir(p, home string) bool {
	rel, ok := under(home, p)
	return ok && credStoreAt(filepath.ToSlash(rel), false)
}

// credStoreFile reports a path in a credential store of any home, by its name or through links.
func credStoreFile(p string) bool {
	home, _ := os.UserHomeDir()
	r := &reader{home: homeDir()}
	return r.inCredStore(path.Clean(toSlash(p)), false) || r.inCredStore(path.Clean(toSlash(resolveLinks(p))), false) ||
		inCredentialDir(resolveLinks(p), resolveLinks(home))
}

// startupDirs are a home's folders whose files run as a shell starts or the user logs in, as
// a dotfile does. Lower case; each name a pattern.
var startupDirs = []string{"documents/powershell", "documents/windowspowershell", "onedrive*/documents/powershell",
	"onedrive*/documents/windowspowershell", "appdata/roaming/microsoft/windows/start menu/programs/startup", "library/launchagents"}

func startupFile(rel string) bool {
	parts := winNames(rel)
	return slices.ContainsFunc(startupDirs, func(d string) bool {
		pat := strings.Split(d, "/")
		return len(parts) >= len(pat) && !slices.ContainsFunc(pat, func(p string) bool {
			ok, _ := path.Match(p, parts[slices.Index(pat, p)])
			return !ok
		})
	})
}

// sensitivePath reports a file no "always" covers: a home dotfile or startup file, a secret, or
// a file outside the workspace cwd; by its path or by the file a symlink names.
func sensitivePath(p, cwd string) bool {
	if p == unknownTarget {
		return true
	}
	home, _ := os.UserHomeDir()
	return sensitiveAt(p, home, cwd) || sensitiveAt(resolveLinks(p), resolveLinks(home), resolveLinks(cwd))
}

func sensitiveAt(p, home, cwd string) bool {
	rel, inHome := under(home, p)
	_, inCwd := under(cwd, p)
	return secretAt(p, home) || inHome && rel != "." && (strings.HasPrefix(filepath.ToSlash(rel), ".") || startupFile(rel)) ||
		cwd != "" && !inCwd
}

// gitControl reports a .git, or a config or hook under one (what git reads to run a program),
// in any case and as Windows names it too (GIT~1, ".git.", "config::$DATA").
func gitControl(p string) bool {
	parts := winNames(p)
	i := slices.IndexFunc(parts, func(part string) bool { return names(part, ".git") })
	rest := parts[i+1:]
	return i >= 0 && (len(rest) == 0 || slices.Contains(rest, "hooks") || slices.Contains([]string{"config", "config.worktree"}, rest[len(rest)-1]))
}

// fillsGit reports a directory filled with files hub cannot name where one may be a config or
// hook: cwd, a work tree, a .git, a hooks directory or one above it, or a sensitivePath.
func fillsGit(d, cwd string, hooks hookDirsOf) bool {
	if d == unknownTarget {
		return true
	}
	p := fromShellPath(d)
	_, err := os.Lstat(lookupName(filepath.Join(p, ".git")))
	rel, in := under(cwd, p)
	relLinked, inLinked := under(resolveLinks(cwd), resolveLinks(p))
	return err == nil || in && rel == "." || inLinked && relLinked == "." || sensitivePath(p, cwd) ||
		gitControl(p) || gitControl(resolveLinks(p)) || hooks.written(p)
}

// hookDirsOf are, by directory, its work tree's root and the core.hooksPath directories of its
// repository, in lower case: a directory's repository is read once.
type hookDirsOf map[string][]string

// written reports a write into such a hooks directory, or of one above it in the work tree: git
// runs what is there. Case is folded, as macOS and Windows fold it.
func (hd hookDirsOf) written(p string) bool {
	p = path.Clean(toSlash(p))
	dirs, ok := hd[path.Dir(p)]
	if !ok {
		if g := findGitDir(path.Dir(p)); g != "" {
			r, _ := newReader()
			dirs = hookDirs(g, slices.Concat(r.userGitConf(), r.gitFiles(path.Join(gitCommon(g), "config"), path.Join(g, "config.worktree"))))
			dirs[0] = workTree(g) // the work tree's root, in place of .git/hooks
		}
		for i, h := range dirs {
			if h = strings.ToLower(path.Clean(h)); i > 0 && path.Base(h) == "_" {
				h = path.Dir(h) // husky's: .husky/_/pre-commit runs .husky/pre-commit
			}
			dirs[i] = h
		}
		hd[path.Dir(p)] = dirs
	}
	p = strings.ToLower(p)
	return len(dirs) > 0 && slices.ContainsFunc(dirs[1:], func(h string) bool {
		for a := h; ; { // h, or one above it in the work tree
			if m, _ := path.Match(p, a); m || p == a { // p may be a pattern (cp -r tpl/* .)
				return true
			}
			if a = path.Dir(a); a == "/" || !strings.HasPrefix(a, dirs[0]+"/") {
				return strings.HasPrefix(p, h+"/")
			}
		}
	})
}

// resolveLinks is p with symlinks resolved as far as they exist (a new file through its directory).
func resolveLinks(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.EvalSymlinks(lookupName(p)); err == nil && r != "" {
		return r
	}
	if d := filepath.Dir(p); d != p {
		return filepath.Join(resolveLinks(d), filepath.Base(p))
	}
	return p
}

func under(dir, p string) (string, bool) {
	if dir == "" || !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// OptionsProblem says why an agent's permission options cannot be relayed ("" when they can):
// two sharing an id would leave unclear which one the user picked.
func OptionsProblem(opts []adapters.PermissionOption) string {
	seen := map[string]bool{}
	for _, o := range opts {
		if seen[o.ID] {
			return fmt.Sprintf("refused: the agent offered two permission options with the id %q", o.ID)
		}
		seen[o.ID] = true
	}
	return ""
}
