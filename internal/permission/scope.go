package permission

import (
	"path/filepath"
	"strings"

	"github.com/google/shlex"
)

// AlwaysScope is what an "always" answer covers; it is never broader than
// the command the user saw:
//   - a destructive command (rm, dd, mkfs, git push --force, git reset
//     --hard, chmod -R, …), a compound one (pipes, lists, redirects,
//     substitutions) or one behind a wrapper (sudo, env, VAR=x, xargs, …)
//     covers only itself, exactly;
//   - any other command covers its program, subcommand and flags, with
//     its other arguments free ("go test ./a" covers "go test ./b", not
//     "go test -exec x ./b" nor "go build");
//   - a tool without a command covers the tool.
func AlwaysScope(tool, command string) string {
	if command == "" {
		return tool
	}
	command = strings.TrimSpace(unwrapShell(command))
	exact := tool + "\x00=" + command
	if strings.ContainsAny(command, ";&|<>`\n") || strings.Contains(command, "$(") {
		return exact
	}
	argv, err := shlex.Split(command)
	if err != nil || len(argv) == 0 || wrapped(argv[0]) || destructive(argv) {
		return exact
	}
	return tool + "\x00" + strings.Join(commandShape(argv), " ")
}

// commandShape keeps the program, its subcommand (a plain word right after
// it) and every flag, dropping flag values and positional arguments.
func commandShape(argv []string) []string {
	shape := []string{argv[0]}
	rest := argv[1:]
	if len(rest) > 0 && plainWord(rest[0]) {
		shape, rest = append(shape, rest[0]), rest[1:]
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			shape = append(shape, a)
		}
	}
	return shape
}

func plainWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != "" && s[0] != '-'
}

// wrapped reports a first word that runs another command, whose shape it
// hides: an environment assignment or a wrapper program.
func wrapped(first string) bool {
	if strings.Contains(first, "=") {
		return true
	}
	switch filepath.Base(first) {
	case "sudo", "doas", "su", "env", "xargs", "nohup", "time", "nice", "timeout", "exec",
		"command", "eval", "watch", "parallel", "bash", "sh", "zsh", "dash", "fish", "python", "python3",
		"node", "perl", "ruby":
		return true
	}
	return false
}

// destructivePrograms delete or overwrite data whatever their flags say.
var destructivePrograms = map[string]bool{
	"rm": true, "rmdir": true, "unlink": true, "dd": true, "shred": true, "truncate": true,
	"wipefs": true, "fdisk": true, "sfdisk": true, "parted": true, "mv": true, "kill": true,
	"killall": true, "pkill": true, "reboot": true, "shutdown": true, "halt": true, "poweroff": true,
}

// destructive reports a command that must match exactly to be allowed again.
func destructive(argv []string) bool {
	prog := filepath.Base(argv[0])
	args := argv[1:]
	switch {
	case destructivePrograms[prog], strings.HasPrefix(prog, "mkfs"):
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
		if hasFlag(rest, "-f", "--force", "--force-with-lease", "--force-if-includes", "-d", "--delete", "--mirror", "--prune") {
			return true
		}
		for _, a := range rest {
			if strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") {
				return true
			}
		}
	case "reset":
		return hasFlag(rest, "--hard", "--merge", "--keep")
	case "clean", "restore", "filter-branch", "filter-repo", "gc", "prune", "reflog", "update-ref":
		return true
	case "checkout", "switch":
		return hasFlag(rest, "-f", "--force", "--", ".", "--discard-changes")
	case "branch", "tag":
		return hasFlag(rest, "-D", "-d", "--delete", "-f", "--force")
	case "stash":
		return len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear")
	case "rebase", "commit":
		return hasFlag(rest, "--amend", "--root", "-i", "--interactive")
	}
	return false
}

// hasFlag reports whether args hold one of flags, also inside a short
// option cluster ("-rf" holds "-f").
func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
			if len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], rune(f[1])) {
				return true
			}
		}
	}
	return false
}
