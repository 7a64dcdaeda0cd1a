package permission

import (
	"path"
	"slices"
	"strings"
)

// storeTool is a program that writes a credential store by design (a
// login, a key import, a context switch): the file it writes in the home,
// the option naming another (a directory when it ends in /), and the
// subcommands that write ("" for any; for gpg, its long options).
type storeTool struct {
	file, opt string
	writes    []string
	reads     []string // subcommands the writes begin that only read
}

var storeTools = map[string]storeTool{
	"gpg": {".gnupg/pubring.kbx", "--homedir/", strings.Fields(`import recv-keys receive-keys fetch-keys refresh-keys locate-keys
		locate-external-keys search-keys gen-key generate-key full-gen-key full-generate-key quick-gen-key quick-generate-key
		quick-add-key quick-add-uid quick-revoke-uid quick-revoke-sig quick-set-expire quick-set-primary-uid quick-sign-key
		quick-lsign-key quick-update-pref sign-key lsign-key nrsign-key tsign-key edit-key key-edit delete-key delete-keys
		delete-secret-key delete-secret-keys delete-secret-and-public-key delete-secret-and-public-keys import-ownertrust
		update-trustdb check-trustdb fix-trustdb change-passphrase passwd card-edit edit-card learn-card`), []string{"sign"}},
	"docker":               {".docker/config.json", "--config/", []string{"login", "logout", "context use", "context create", "context rm", "context update", "context import", "trust key", "trust signer"}, nil},
	"crane":                {".docker/config.json", "", []string{"auth login", "auth logout"}, nil},
	"oras":                 {".docker/config.json", "--registry-config", []string{"login", "logout"}, nil},
	"aws":                  {".aws/credentials", "", []string{"configure", "sso login", "sso logout", "login", "logout", "codeartifact login", "eks update-kubeconfig"}, []string{"configure get", "configure list", "configure list-profiles", "configure export-credentials"}},
	"az":                   {".azure/azureProfile.json", "", []string{"login", "logout", "account set", "account clear", "configure", "acr login", "aks get-credentials"}, nil},
	"gh":                   {".config/gh/hosts.yml", "", []string{"auth login", "auth logout", "auth refresh", "auth switch", "config set", "alias set", "alias delete", "alias import"}, nil},
	"gcloud":               {".config/gcloud/credentials.db", "", []string{"init", "auth login", "auth activate-service-account", "auth revoke", "auth configure-docker", "auth application-default login", "auth application-default revoke", "auth application-default set-quota-project", "config set", "config unset", "config configurations", "container clusters get-credentials"}, []string{"config configurations list", "config configurations describe"}},
	"kubectl":              {".kube/config", "--kubeconfig", []string{"config set", "config set-cluster", "config set-context", "config set-credentials", "config unset", "config use-context", "config use", "config delete-context", "config delete-cluster", "config delete-user", "config rename-context"}, nil},
	"npm":                  {".npmrc", "--userconfig", []string{"login", "adduser", "add-user", "logout", "set", "config set", "config delete", "config rm", "config edit", "c set", "c delete", "c rm", "c edit"}, nil},
	"git":                  {".git-credentials", "--file", []string{"credential approve", "credential reject", "credential-store store", "credential-store erase", "credential-libsecret store", "credential-libsecret erase"}, nil},
	"git-credential-store": {".git-credentials", "--file", []string{"store", "erase"}, nil},
	"keyring":              {".local/share/keyrings/x", "", []string{"set", "del"}, nil},
	"cargo":                {".cargo/credentials.toml", "", []string{"login", "logout"}, nil},
	"pass":                 {".password-store/x", "", strings.Fields("insert add generate edit rm remove delete mv rename cp copy init git"), nil},
	"secret-tool":          {".local/share/keyrings/x", "", []string{"store", "clear"}, nil},
	"heroku":               {".netrc", "", []string{"login", "logout", "auth:login", "auth:logout"}, nil},
	// hub cannot tell a host from this one: the key lands in a home's
	// ~/.ssh as it does with ssh HOST 'cat >> ~/.ssh/authorized_keys'.
	"ssh-copy-id": {".ssh/authorized_keys", "", []string{""}, nil},
}

// storeEnv names the environment variable that points a program at
// another store, as its storeTool's option does.
var storeEnv = map[string]string{"gpg": "GNUPGHOME", "docker": "DOCKER_CONFIG", "kubectl": "KUBECONFIG", "npm": "NPM_CONFIG_USERCONFIG"}

// layerEnv is the value a wrapper layer (VAR=x cmd, env VAR=x cmd) gives
// the environment variable name, the innermost first.
func layerEnv(layers [][]string, name string) (arg, bool) {
	for _, w := range slices.Backward(slices.Concat(layers...)) {
		if v, ok := strings.CutPrefix(w, name+"="); ok && name != "" {
			return arg{text: v, dynamic: strings.Contains(v, unknown.text)}, true
		}
	}
	return arg{}, false
}

// assignedEnv is layerEnv where the program surely gets the value: an
// assignment (VAR=x cmd, env [-i] VAR=x cmd), not an argument that looks
// like one, with no layer inside it that may drop it (env's options,
// exec -c, sudo and the other privileged wrappers reset the environment).
func assignedEnv(layers [][]string, name string) (arg, bool) {
	for _, l := range slices.Backward(layers) {
		prog, words := "", l
		if len(l) > 0 && !isAssignment(l[0]) {
			prog, words = progName(l[0]), l[1:]
		}
		opts := 0
		for prog == "env" && opts < len(words) && strings.HasPrefix(words[opts], "-") {
			opts++
		}
		set := words[opts:]
		if n := slices.IndexFunc(set, func(w string) bool { return !isAssignment(w) }); n >= 0 {
			set = set[:n]
		}
		if v, ok := layerEnv([][]string{set}, name); ok && (prog == "" || prog == "env") {
			return v, true
		}
		if privileged[prog] || opts > 0 || prog == "exec" && len(words) > 0 && strings.HasPrefix(words[0], "-") {
			return arg{}, false
		}
	}
	return arg{}, false
}

// storeTwins share a storeTool.
var storeTwins = map[string]string{"gpg2": "gpg", "gpgsm": "gpg", "oc": "kubectl", "pnpm": "npm", "git-credential-libsecret": "git-credential-store"}

// storeWrites: the credential store a program that keeps one writes, or
// the one its option or environment variable (storeEnv) names instead.
func (k *check) storeWrites(prog string, args []arg) []arg {
	if twin, ok := storeTwins[prog]; ok {
		prog = twin
	}
	t, ok := storeTools[prog]
	if !ok || prog == "gpg" && !gpgCommand(args, t) || prog != "gpg" && (!k.leads(args, t.writes, false) || k.leads(args, t.reads, true)) {
		return nil
	}
	vals, _ := k.optValues(args, "", strings.TrimSuffix(t.opt, "/"), "")
	if v, ok := assignedEnv(k.c.layers, storeEnv[prog]); ok && len(vals) == 0 && !strings.ContainsAny(v.text, ":;") { // not a list
		vals = []arg{k.tilde(v)}
	}
	if t.opt != "" && len(vals) > 0 {
		v := vals[len(vals)-1]
		if strings.HasSuffix(t.opt, "/") {
			v.text = path.Join(v.text, path.Base(t.file))
		}
		return []arg{v}
	}
	loc, _ := k.optValues(args, "L", "--location", "")
	if prog == "npm" && (hasShort(args, "g") || hasLong(args, "--global") || slices.ContainsFunc(loc, func(a arg) bool { return a.text == "project" || a.text == "global" })) {
		return nil // the project's .npmrc, or the installation's
	}
	return []arg{{text: k.r.home + "/" + t.file}}
}

// gpgCommand reports a gpg command word (--import, --import=…) among
// args, or a unique abbreviation of one, as gpg reads them.
func gpgCommand(args []arg, t storeTool) bool {
	return slices.ContainsFunc(args, func(a arg) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(a.text, "--"), "=")
		return strings.HasPrefix(a.text, "--") && len(name) >= 3 && !slices.Contains(t.reads, name) &&
			slices.ContainsFunc(t.writes, func(w string) bool { return strings.HasPrefix(w, name) })
	})
}

// leads reports args' words beginning with one of subs, passing over a
// word right after an option: it may be that option's value (docker -D
// login, aws --profile dev configure); with values, it is one even when
// it reads as the subcommand (the reads of aws configure --profile get
// set). A word hub cannot read where a subcommand stands makes the line
// unclear.
func (k *check) leads(args []arg, subs []string, values bool) bool {
	return slices.ContainsFunc(subs, func(sub string) bool {
		i := 0
		for _, w := range strings.Fields(sub) {
			for i < len(args) && args[i].text != "--" && (strings.HasPrefix(args[i].text, "-") && !args[i].dynamic ||
				i > 0 && strings.HasPrefix(args[i-1].text, "-") && !strings.Contains(args[i-1].text, "=") && (args[i].text != w || values)) {
				i++
			}
			if i < len(args) && args[i].dynamic {
				k.unknown()
			}
			if i == len(args) || args[i].text != w || args[i].dynamic {
				return false
			}
			i++
		}
		return true
	})
}

// gitReaders are git's subcommands that leave the work tree as it is
// (clone and init have their own rules).
var gitReaders = set("status", "log", "diff", "show", "blame", "annotate", "grep", "describe", "shortlog", "reflog", "branch",
	"tag", "remote", "fetch", "add", "commit", "push", "config", "ls-files", "ls-tree", "ls-remote", "rev-parse", "rev-list",
	"cat-file", "show-ref", "for-each-ref", "symbolic-ref", "name-rev", "merge-base", "count-objects", "fsck", "gc", "prune",
	"repack", "check-ignore", "check-attr", "var", "version", "help", "whatchanged", "cherry", "range-diff", "diff-tree",
	"diff-index", "diff-files", "format-patch", "archive", "bundle", "verify-commit", "verify-tag", "init", "clone",
	"credential", "credential-store", "notes", "stash list", "stash show", "worktree list", "submodule status", "bisect log")

func gitReads(args []arg) bool {
	return len(args) > 0 && (gitReaders[args[0].text] || len(args) > 1 && gitReaders[args[0].text+" "+args[1].text])
}

// gitWorkTree adds to cwds the work tree a git command writes, named by
// --work-tree, -c core.worktree or GIT_WORK_TREE; one hub cannot know, or
// a repository named without one (its config may name any), makes a
// command that writes it unclear.
func (r *reader) gitWorkTree(x *runCtx, named map[string]*arg, args []arg) {
	for opt, env := range map[string]string{"--work-tree": "GIT_WORK_TREE", "--git-dir": "GIT_DIR"} {
		if v, ok := layerEnv(x.layers, env); ok && named[opt] == nil { // GIT_WORK_TREE=~ git …, env GIT_DIR=… git …
			named[opt] = &v
		}
		if v, ok := x.sc.vars[env]; ok && named[opt] == nil {
			named[opt] = &v
		}
	}
	tree := named["--work-tree"]
	if len(named) == 0 || gitReads(args) {
		return
	}
	var dirs []string
	ok := tree != nil && named["-C"] == nil
	if ok {
		dirs, ok = resolve((&check{r: r}).tilde(*tree), x.sc.cwds)
	}
	if !ok {
		r.out.unclear = true
		return
	}
	x.sc = x.sc.clone()
	x.sc.cwds = unionDirs(x.sc.cwds, dirs)
}

// plantsHome: git writing a work tree that holds a credential store (a
// home, /, ~/.config, a store) writes files hub cannot name there, as
// cp -r x/. ~ does; so does making one a repository's work tree, and so
// do the dotfile managers (yadm, vcsh: git on the home; chezmoi, stow).
func plantsHome(k *check) bool {
	args := k.args()
	if len(args) == 0 {
		return false
	}
	switch k.c.prog() {
	case "yadm":
		args = skipOpts(args, "Y", "yadm-dir", "yadm-data", "yadm-repo", "yadm-config", "yadm-encrypt", "yadm-archive", "yadm-bootstrap")
		return len(args) > 0 && (args[0].text == "clone" || !gitReads(args))
	case "vcsh": // vcsh REPO GITCOMMAND, or its own command
		return !slices.Contains([]string{"list", "status", "list-tracked", "list-untracked", "which", "help", "version", "init"}, args[0].text) && !gitReads(args[1:])
	case "chezmoi":
		return (k.leads(args, []string{"apply", "update", "destroy", "merge-all"}, false) || k.leads(args, []string{"init", "edit"}, false) && (hasLong(args, "--apply", "--one-shot") || hasShort(args, "a"))) &&
			k.holds(args, "D", "--destination", "cSWoxid", arg{text: k.r.home})
	case "stow", "xstow":
		target := arg{text: ".."} // the stow directory's parent
		if dir, _ := k.optValues(args, "d", "--dir", "t"); len(dir) > 0 {
			target = arg{text: path.Join(dir[len(dir)-1].text, ".."), dynamic: dir[len(dir)-1].dynamic}
		}
		flags := slices.Clone(args) // -n among the letters before a value (-d/x/configs holds an n)
		for i, a := range flags {
			if j := strings.IndexAny(a.text, "dt"); len(a.text) > 1 && a.text[0] == '-' && a.text[1] != '-' && j > 0 {
				flags[i].text = a.text[:j]
			}
		}
		return !hasShort(flags, "n") && !hasLong(args, "--no", "--simulate") && k.holds(args, "t", "--target", "d", target)
	case "git":
		if i := slices.IndexFunc(args, func(a arg) bool { return strings.EqualFold(a.text, "core.worktree") }); args[0].text == "config" && i > 0 && i+1 < len(args) {
			return k.holds(nil, "", "", "", args[i+1])
		}
		ps, _ := k.paths(arg{text: "."})
		return !gitReads(args) && slices.ContainsFunc(ps, k.r.holdsCredStore)
	}
	return false
}

// holds reports the directory an option names (the last; valued are the
// program's other short options with a value), else def, holding a
// credential store; one hub cannot know makes the line unclear.
func (k *check) holds(args []arg, short, long, valued string, def arg) bool {
	if vals, _ := k.optValues(args, short, long, valued); long != "" && len(vals) > 0 {
		def = vals[len(vals)-1]
	}
	ps, _ := k.known(k.tilde(def))
	return slices.ContainsFunc(ps, k.r.holdsCredStore)
}
