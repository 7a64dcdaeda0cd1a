package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hubdev/hub/adapters"
)

// commandTargets lists the files a command line names: the operands of
// its simple commands (a flag's "=value" and curl's "@file" included),
// its redirect targets, and those of `sh -c` scripts and $(…) inside it;
// "~" and $HOME expanded, relative ones made absolute against cwd, globs
// also as the files they match there. A word hub cannot expand without
// running something ($VAR, $(…)), or a line it cannot parse, is
// unknownTarget.
func commandTargets(cmd, cwd string) []string {
	home, _ := os.UserHomeDir()
	var out []string
	collectTargets(cmd, home, 0, func(t string) {
		if t == unknownTarget {
			out = append(out, t)
			return
		}
		a := absTarget(t, home, cwd)
		out = append(out, a)
		if strings.ContainsAny(t, "*?[") {
			matches, _ := filepath.Glob(a)
			out = append(out, matches[:min(len(matches), maxGlobMatches)]...)
		}
	})
	return out
}

// unknownTarget stands for an operand hub cannot know before the command
// runs: no "always" covers a command with one (sensitivePath).
const unknownTarget = "\x00unknown"

// maxGlobMatches bounds the files one glob operand is checked as.
const maxGlobMatches = 1000

func collectTargets(cmd, home string, depth int, add func(string)) {
	if depth > 5 {
		add(unknownTarget)
		return
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		add(unknownTarget)
		return
	}
	cfg := &expand.Config{Env: expand.ListEnviron("HOME=" + home)}
	lit := func(w *syntax.Word) (string, bool) {
		if !knownWord(w) {
			return unknownTarget, true
		}
		s, err := expand.Literal(cfg, w)
		return s, err == nil && s != ""
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if s, ok := lit(n.Word); ok && n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc && n.Op != syntax.WordHdoc {
				add(s)
			}
		case *syntax.CallExpr:
			var args []string
			for _, w := range n.Args {
				if s, ok := lit(w); ok {
					args = append(args, s)
				}
			}
			operandTargets(args, home, depth, add)
		}
		return true
	})
}

// knownWord reports a word hub can expand without running anything: no
// substitution, no parameter but $HOME.
func knownWord(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	known := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			known = false
		case *syntax.ParamExp:
			known = known && n.Param != nil && n.Param.Value == "HOME" && n.Exp == nil && n.Repl == nil && n.Slice == nil
		}
		return known
	})
	return known
}

// operandTargets adds the operands of one simple command, recursing into
// the script of a shell's -c.
func operandTargets(args []string, home string, depth int, add func(string)) {
	if len(args) < 2 {
		return
	}
	shell := targetShells[strings.ToLower(filepath.Base(args[0]))]
	for i, a := range args[1:] {
		switch {
		case shell && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+2 < len(args):
			collectTargets(args[i+2], home, depth+1, add)
			return
		case a == unknownTarget:
			add(a)
		case strings.HasPrefix(a, "-"):
			if _, v, ok := strings.Cut(a, "="); ok && v != "" {
				add(strings.TrimPrefix(v, "@"))
			}
		default:
			add(strings.TrimPrefix(a, "@"))
		}
	}
}

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

var targetShells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ash": true}

// credentialDirs are the home directory's credential stores: everything
// under them is a secret.
var credentialDirs = []string{".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".password-store"}

// secretNames are files that hold credentials wherever they are.
var secretNames = map[string]bool{
	".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true, ".git-credentials": true, ".pgpass": true,
	".vault-token": true, "credentials.json": true, "id_rsa": true, "id_dsa": true, "id_ecdsa": true,
	"id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
}

// keyExts are private key and keystore files.
var keyExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true, ".ppk": true}

// IsSecretFile reports a file whose content is a credential: a dotenv
// file (not a committed template), a private key, or a file of a
// credential store (~/.ssh, ~/.aws, ~/.netrc, …), by its name or by the
// file a symlink names. Reading one is asked every time (see MustAsk).
func IsSecretFile(p string) bool {
	if p == "" || p == unknownTarget {
		return false
	}
	home, _ := os.UserHomeDir()
	return secretAt(p, home) || secretAt(resolveLinks(p), resolveLinks(home))
}

func secretAt(p, home string) bool {
	base := strings.ToLower(filepath.Base(p))
	switch {
	case IsEnvFile(p), secretNames[base], keyExts[filepath.Ext(base)]:
		return true
	case strings.HasSuffix(base, ".pub"), base == "known_hosts":
		return false
	case strings.HasPrefix(base, "id_") && strings.EqualFold(filepath.Base(filepath.Dir(p)), ".ssh"):
		return true
	}
	return inCredentialDir(p, home)
}

func inCredentialDir(p, home string) bool {
	rel, ok := under(home, p)
	if !ok {
		return false
	}
	rel = strings.ToLower(filepath.ToSlash(rel))
	for _, d := range credentialDirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// sensitivePath reports a file no "always" answer covers: a dotfile of the
// home directory (~/.bashrc, ~/.ssh/…, ~/.config/…), a secret, or a file
// outside the workspace cwd; by its path or by the file a symlink names.
func sensitivePath(p, cwd string) bool {
	if p == unknownTarget {
		return true
	}
	home, _ := os.UserHomeDir()
	return sensitiveAt(p, home, cwd) || sensitiveAt(resolveLinks(p), resolveLinks(home), resolveLinks(cwd))
}

func sensitiveAt(p, home, cwd string) bool {
	if secretAt(p, home) {
		return true
	}
	if rel, ok := under(home, p); ok && rel != "." && strings.HasPrefix(filepath.ToSlash(rel), ".") {
		return true
	}
	if cwd == "" {
		return false
	}
	_, ok := under(cwd, p)
	return !ok
}

// resolveLinks is p with symlinks resolved, as far as they exist (a file not
// yet written resolves through its directory).
func resolveLinks(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(r, filepath.Base(p))
	}
	return p
}

// under reports whether p is dir or inside it, and p relative to dir.
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

// OptionsProblem says why an agent's permission options cannot be relayed
// ("" when they can): two options share an id, so hub could not tell
// which one the user picked, nor the agent which one hub answered.
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
