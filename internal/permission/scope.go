package permission

import (
	"crypto/sha256"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hubdev/hub/adapters"
)

// AlwaysScope is what an "always" answer covers, never broader than the command the user saw:
// a destructive, compound or wrapped command, or one running a program it is given, covers
// only itself; any other covers its shape (commandShape: "go test ./a" covers "go test ./b",
// "acme db list" not "acme db drop"); a tool without a command covers the tool.
func AlwaysScope(tool, command string) string {
	if command == "" {
		return tool
	}
	command = strings.TrimSpace(unwrapShell(command))
	argv, ok := plainCommand(command)
	if !ok || wrapped(argv) || destructive(argv) || hasFlag(argv[1:], programFlags[progName(argv[0])]...) ||
		len(readLine(command, nil).calls) > 1 { // it runs another (git -u, rebase -x, …)
		return tool + "\x00=" + command
	}
	return tool + "\x00" + strings.Join(commandShape(argv), " ")
}

// repoKey is what an "always" for a line running git adds to its scope: the repositories its git
// commands use and a digest of their hooks, as the user saw them (git runs hooks for most commands).
func (rd *reading) repoKey() string {
	if len(rd.repos) == 0 {
		return ""
	}
	repos, hooks := slices.Compact(slices.Sorted(slices.Values(rd.repos))), slices.Compact(slices.Sorted(slices.Values(rd.hooks)))
	sum := sha256.Sum256([]byte(strings.Join(hooks, "\n")))
	return fmt.Sprintf("%s%s #%x", repoSep, strings.Join(repos, " "), sum[:6])
}

const repoSep = "\x00in "

// scope is AlwaysScope for req's command. A PowerShell or cmd.exe line is scoped under the tool
// named with the shell ("bash@powershell"), so no answer for one grammar covers the same words
// in another: one plain program keeps its shape, anything else only itself.
func (req Request) scope() string {
	if req.Shell == adapters.ShellUnknown || req.Shell == adapters.ShellSh {
		return AlwaysScope(req.Tool, req.Command)
	}
	tool := req.Tool + "@" + string(req.Shell)
	rd := req.reading()
	if len(rd.calls) != 1 || rd.unclear {
		return tool + "\x00=" + strings.TrimSpace(req.Command)
	}
	c := rd.calls[0]
	argv := texts(c.argv)
	if len(c.layers) != 1 || c.opaque || len(c.redirs) > 0 || len(argv) == 0 || anyDynamic(c.argv) || wrapped(argv) || destructive(argv) ||
		hasFlag(argv[1:], programFlags[progName(argv[0])]...) {
		return tool + "\x00=" + strings.TrimSpace(req.Command)
	}
	return tool + "\x00" + strings.Join(commandShape(argv), " ")
}

// plainCommand is the argv of a line that is one simple command of static words, no redirect.
func plainCommand(src string) ([]string, bool) {
	st, ce, ok := oneCall(src)
	if !ok || st.Negated || st.Background || st.Coprocess || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return nil, false
	}
	for _, w := range ce.Args {
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			case *syntax.DblQuoted:
				if slices.ContainsFunc(p.Parts, func(q syntax.WordPart) bool { _, lit := q.(*syntax.Lit); return !lit }) {
					return nil, false
				}
			default:
				return nil, false
			}
		}
	}
	r, sc := newReader()
	args := r.fields(ce.Args, sc)
	if len(args) == 0 || anyDynamic(args) {
		return nil, false
	}
	return texts(args), true
}

// oneCall is the statement of src when src is one simple command without a redirect.
func oneCall(src string) (*syntax.Stmt, *syntax.CallExpr, bool) {
	stmts, err := parseStmts(src)
	if err != nil || len(stmts) != 1 || len(stmts[0].Redirs) > 0 {
		return nil, nil, false
	}
	ce, ok := stmts[0].Cmd.(*syntax.CallExpr)
	return stmts[0], ce, ok
}

// parseWords parses s as the words of one simple command (env -S).
func parseWords(s string) []*syntax.Word {
	_, ce, ok := oneCall(s)
	if !ok {
		return nil
	}
	var words []*syntax.Word // NAME=VALUE is a word too (env -S "EDITOR=… crontab -e")
	for _, as := range ce.Assigns {
		if as.Name == nil || as.Array != nil || as.Index != nil {
			return nil
		}
		words = append(words, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: as.Name.Value + "="}}})
		if as.Value != nil {
			words[len(words)-1].Parts = append(words[len(words)-1].Parts, as.Value.Parts...)
		}
	}
	return append(words, ce.Args...)
}

// operandCommands are well-known commands whose other words are all operands, with no further
// subcommand level (unlike git stash list, gh repo delete). Nor is git push here: its branch
// is where it lands.
var operandCommands = set(
	"git add", "git blame", "git branch", "git checkout", "git cherry-pick", "git clone", "git commit", "git diff", "git fetch",
	"git grep", "git init", "git log", "git merge", "git mv", "git pull", "git rebase", "git reset", "git restore",
	"git revert", "git rm", "git show", "git status", "git switch", "git tag", "git describe", "git ls-files", "git rev-parse",
	"go build", "go test", "go vet", "go run", "go install", "go get", "go fmt", "go generate", "go list", "go doc", "go clean",
	"cargo build", "cargo test", "cargo check", "cargo run", "cargo clippy", "cargo fmt", "cargo doc", "cargo bench", "cargo add", "cargo install",
	"npm install", "npm i", "npm ci", "npm test", "npm view", "npm ls", "pnpm install", "pnpm add", "yarn add", "yarn install", "bun add", "bun install",
	"gh pr view", "gh pr diff", "gh pr checks", "gh pr checkout", "gh issue view", "gh run view",
	"docker build", "docker pull", "docker logs", "docker inspect", "pytest", "jest", "tsc") // and fileReaders (cat, ls, grep, …)

// fetchers are operandCommands whose operand may be a package they fetch and so run (install
// scripts, build.rs): only a local one (./x, /x, ~/x) is free.
var fetchers = set("go run", "go install", "cargo install", "npm install", "npm i", "pnpm install", "pnpm add", "yarn add", "bun add", "bun install")

// programFlags are options whose value may name a program the command runs or loads
// (cargo --config build.rustc-wrapper=…, pytest -p PLUGIN), which a shape would drop.
var programFlags = map[string][]string{"cargo": {"--config"}, "pytest": {"-p"}, "curl": {"-K", "--config"}, "wget": {"-i", "--input-file", "-e", "--execute", "--config"},
	"kubectl": {"--kubeconfig"}, "helm": {"--kubeconfig"}, "docker": {"--config"}} // a file of URLs or settings; a kubeconfig's exec plugin, docker's credential helper

// commandShape is what an "always" keeps of a command: for operandCommands its program,
// subcommand words and flags; for any other every word but file paths (pathWord), wherever
// it stands, so no subcommand at any level is taken for an operand.
func commandShape(argv []string) []string {
	argv = slices.Clone(argv)
	reader := (urlReaders[progName(argv[0])] || len(argv) > 1 && urlReaders[progName(argv[0])+" "+argv[1]]) &&
		!hasFlag(argv, "-X", "--request", "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--json", "-F", "--form", "-T",
			"--upload-file", "--method", "--post-data", "--post-file", "--body-data", "--body-file") &&
		!slices.ContainsFunc(argv[1:], func(a string) bool { // git fetch URL main:main writes a branch of the work tree's
			return progName(argv[0]) == "git" && !strings.HasPrefix(a, "-") && strings.Contains(a, ":") && !strings.Contains(a, "://") && scpURL().FindString(a) == ""
		})
	web := progName(argv[0]) == "curl" || progName(argv[0]) == "wget"
	for i, a := range argv { // a URL keeps its host, and its path unless the command only fetches from it
		if web && i > 0 && bareURL().MatchString(a) { // curl api.a.invalid/x.json: no path, a URL without its scheme
			a = "http://" + a
			argv[i] = a
		}
		if h := urlHost(a); reader && h != "" {
			argv[i] = h
		}
	}
	for n := min(len(argv), 3); n > 0; n-- {
		if k := strings.Join(append([]string{progName(argv[0])}, argv[1:n]...), " "); operandCommands[k] || n == 1 && fileReaders[k] {
			out := slices.Clone(argv[:n])
			for i, a := range argv[n:] {
				if strings.HasPrefix(a, "-") || urlWord(a) || !fileReaders[k] && placeFlags[argv[n+i-1]] || // grep -R, ls -H
					fetchers[k] && !strings.ContainsAny(a[:min(len(a), 1)], "./~") {
					out = append(out, a)
				}
			}
			return out
		}
	}
	keep := min(len(argv), 2) // the program and the word in a subcommand's place, even a path
	config := progName(argv[0]) == "git" && argv[keep-1] == "config"
	return append(argv[:keep], slices.DeleteFunc(argv[keep:], func(a string) bool {
		return pathWord(a) && !urlWord(a) || config && !strings.HasPrefix(a, "-") && strings.Contains(a, ".") // a key: what git runs is asked apart
	})...)
}

// urlReaders fetch what a URL names (without data to send): an "always" lets its path vary on
// the host. Any other command keeps the whole URL (git pull merges another repository in).
var urlReaders = set("curl", "wget", "git clone", "git fetch", "git ls-remote")

// placeFlags name where a command acts (a repository, a daemon): their value is kept.
var placeFlags = set("-R", "--repo", "--hostname", "-H", "--host", "--context", "--registry", "--index", "--upload-pack", "--exec")

func urlWord(s string) bool { return urlHost(s) != "" }

// urlHost is a URL's scheme and host, or git's user@host: of user@host:path; "" for no URL. A
// URL Go cannot parse (https://a/%zz) is kept whole: hub cannot tell its host.
func urlHost(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && strings.Contains(s, "://") {
		return u.Scheme + "://" + strings.ToLower(u.Host)
	} else if err != nil && strings.Contains(s, "://") && !strings.HasPrefix(s, "-") {
		return s
	}
	if h := scpURL().FindString(s); h != "" || !scpHost().MatchString(s) {
		return h
	}
	return s // host:path without a user (git, scp, rsync): kept whole, as hub cannot tell it from a refspec
}

var scpHost = lazyRE(`^[\w.-]{2,}:`)

var scpURL = lazyRE(`^[\w.-]+@[\w.-]+:`)

// bareURL is a URL without its scheme, as curl and wget take one.
var bareURL = lazyRE(`^[\w-]+(\.[\w-]+)+(:\d+)?/|^[\w.-]+:\d+(/|$)`)

// pathWord reports an operand naming a file or a URL: a URL, a path from /, . or ~, or one
// with a directory and an extension. A slash alone (pod/web), a dot alone (build.prod) or a
// colon (an image's tag) makes no path.
func pathWord(s string) bool {
	if strings.HasPrefix(s, "-") || !strings.ContainsAny(s, "/.") || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./~+@%,:", r))
	}) {
		return false
	}
	return strings.Contains(s, "://") || !strings.Contains(s, ":") && (strings.ContainsAny(s[:1], "/.~") || strings.Contains(s, "/") && strings.Contains(path.Base(s), "."))
}

// wrapped reports a command that runs another, whose shape it hides (git -c can run any program).
func wrapped(argv []string) bool {
	prog := progName(argv[0])
	_, plain := plainWrappers[prog]
	return plain || shells[prog] || psRunners[psCmdletName(arg{text: argv[0]})] || interpreters[strings.TrimRight(prog, "0123456789.")] || privileged[prog] ||
		prog == "git" && len(argv) > 1 && strings.HasPrefix(argv[1], "-") || len(npxRunnerAt(argv)) > 0 ||
		slices.Contains([]string{"env", "xargs", "eval", "source", ".", "watch", "parallel", "flock", "busybox", "script", "trap", "find", "ssh", "at", "batch", "wsl"}, prog)
}

var destructivePrograms = set("rm", "rimraf", "rmdir", "unlink", "dd", "shred", "truncate", "wipefs", "fdisk", "sfdisk", "parted",
	"mv", "kill", "killall", "pkill", "reboot", "shutdown", "halt", "poweroff", "srm", "wipe", "mkswap", "mke2fs", "cp",
	"install", "ln", "tee", "rsync", "blkdiscard", "chattr")

func destructive(argv []string) bool {
	prog := progName(argv[0])
	args := argv[1:]
	switch {
	case destructivePrograms[prog], strings.HasPrefix(prog, "mkfs"), destructivePrograms[psProgram(argv[0])], winExes[strings.TrimSuffix(prog, ".com")], prog == "mklink", // robocopy's /MIR looks like a path to the shape
		slices.ContainsFunc(winDenied, func(d winDeny) bool { return d.prog == prog }): // so does msiexec's /x, bcdedit's /set
		return true
	case prog == "chmod", prog == "chown", prog == "chgrp":
		return hasFlag(args, "-R", "--recursive")
	case prog == "find":
		return hasFlag(args, "-delete", "-exec", "-execdir", "-ok", "-okdir")
	case prog == "git":
		return destructiveGit(args)
	}
	return false
}

func destructiveGit(args []string) bool {
	if len(args) == 0 {
		return false
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "push":
		return hasFlag(rest, "-f", "--force", "--force-with-lease", "--force-if-includes", "-d", "--delete", "--mirror", "--prune") ||
			slices.ContainsFunc(rest, func(a string) bool { return strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") })
	case "reset":
		return hasFlag(rest, "--hard", "--merge", "--keep")
	case "clean", "restore", "filter-branch", "filter-repo", "gc", "prune", "reflog", "update-ref":
		return true
	case "checkout", "switch":
		return hasFlag(rest, "-f", "--force", "--", ".", "--discard-changes") || sub == "checkout" && checkoutPaths(rest)
	case "branch", "tag":
		return hasFlag(rest, "-D", "-d", "--delete", "-f", "--force")
	case "stash":
		return len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear")
	case "rebase", "commit":
		return hasFlag(rest, "--amend", "--root", "-i", "--interactive")
	}
	return false
}

// checkoutPaths reports a git checkout that may overwrite files with a revision's: two operands
// or a file path, and no new branch.
func checkoutPaths(args []string) bool {
	ops := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "-") })
	return !hasFlag(args, "-b", "-B", "--orphan") && (len(ops) > 1 || slices.ContainsFunc(ops, pathWord))
}

// longName is the option of names that t (--name[=value]) abbreviates, as git and GNU take a
// unique prefix (--har is --hard; an ambiguous one, which they refuse, is the first); else t.
func longName(t string, names ...string) string {
	n, v, eq := strings.Cut(t, "=")
	i := slices.IndexFunc(names, func(f string) bool { return strings.HasPrefix(f, n) })
	switch {
	case i < 0 || len(n) < 5 || !strings.HasPrefix(n, "--") || slices.Contains(names, n):
		return t
	case eq:
		return names[i] + "=" + v
	}
	return names[i]
}

// hasFlag reports one of flags in args, also in a cluster ("-rf" holds "-f") or abbreviated.
func hasFlag(args []string, flags ...string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		a = longName(a, flags...)
		return slices.ContainsFunc(flags, func(f string) bool {
			return a == f || strings.HasPrefix(a, f+"=") ||
				len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], rune(f[1]))
		})
	})
}
