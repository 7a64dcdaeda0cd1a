package permission

import (
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"os/exec"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/safefile"
)

// storeTool is a program that writes a credential store by design (a login, a key import).
type storeTool struct {
	file     string   // in the home, space separated
	opt, env string   // option, variables (one per file) naming another; a directory if it ends in /
	writes   []string // subcommands ("" for any; gpg's long options; a word ending in . begins one)
	reads    []string // subcommands the writes begin that only read
	fixed    []string // writes whose store neither opt nor env moves
}

var storeTools = map[string]storeTool{
	"gpg": {".gnupg/pubring.kbx", "--homedir/", "GNUPGHOME/", strings.Fields(`import recv-keys receive-keys fetch-keys refresh-keys locate-keys
		locate-external-keys search-keys gen-key generate-key full-gen-key full-generate-key quick-gen-key quick-generate-key
		quick-add-key quick-add-uid quick-revoke-uid quick-revoke-sig quick-set-expire quick-set-primary-uid quick-sign-key
		quick-lsign-key quick-update-pref sign-key lsign-key nrsign-key tsign-key edit-key key-edit delete-key delete-keys
		delete-secret-key delete-secret-keys delete-secret-and-public-key delete-secret-and-public-keys import-ownertrust
		update-trustdb check-trustdb fix-trustdb change-passphrase passwd card-edit edit-card learn-card`), []string{"sign"}, nil},
	"docker": {".docker/config.json", "--config/", "DOCKER_CONFIG/", []string{"login", "logout", "context use", "context create", "context rm", "context update", "context import", "trust key", "trust signer"}, nil, nil},
	"crane":  {".docker/config.json", "", "", []string{"auth login", "auth logout"}, nil, nil},
	"oras":   {".docker/config.json", "--registry-config", "", []string{"login", "logout"}, nil, nil},
	// aws configure writes either file; a login, sso's too, writes ~/.aws/sso or another tool's store
	"aws": {".aws/credentials .aws/config", "", "AWS_SHARED_CREDENTIALS_FILE AWS_CONFIG_FILE", []string{"configure", "sso login", "sso logout", "login", "logout", "codeartifact login", "eks update-kubeconfig"},
		[]string{"configure get", "configure list", "configure list-profiles", "configure export-credentials"}, []string{"configure sso", "configure sso-session", "configure add-model", "sso", "login", "logout", "codeartifact", "eks"}},
	"az": {".azure/azureProfile.json", "", "", []string{"login", "logout", "account set", "account clear", "configure", "acr login", "aks get-credentials"}, nil, nil},
	// gh auth keeps its token in the system's keyring unless told otherwise
	"gh": {".config/gh/hosts.yml", "", "GH_CONFIG_DIR/", []string{"auth login", "auth logout", "auth refresh", "auth switch", "auth setup-git", "config set", "alias set", "alias delete", "alias import"}, nil, []string{"auth"}},
	"gcloud": {".config/gcloud/credentials.db", "", "CLOUDSDK_CONFIG/", []string{"init", "auth login", "auth activate-service-account", "auth revoke", "auth configure-docker", "auth application-default login", "auth application-default revoke", "auth application-default set-quota-project", "config set", "config unset", "config configurations", "container clusters get-credentials"},
		[]string{"config configurations list", "config configurations describe"}, []string{"auth configure-docker", "container"}},
	"kubectl":            {".kube/config", "--kubeconfig", "KUBECONFIG", []string{"config set", "config set-cluster", "config set-context", "config set-credentials", "config unset", "config use-context", "config use", "config delete-context", "config delete-cluster", "config delete-user", "config rename-context"}, nil, nil},
	"npm":                {".npmrc", "--userconfig", "NPM_CONFIG_USERCONFIG", []string{"login", "adduser", "add-user", "logout", "set", "config set", "config delete", "config rm", "config edit", "c set", "c delete", "c rm", "c edit"}, nil, nil},
	"git-credential":     {".git-credentials", "", "", []string{"approve", "reject"}, nil, nil},
	"git-credential-":    {".git-credentials", "--file", "", []string{"store", "erase"}, nil, nil},                                                          // credential helpers: store, libsecret, osxkeychain, manager, …
	"git-config":         {".git-credentials", "--file -f", "", []string{""}, nil, []string{"credential", gitCredKeys, "set|unset " + gitCredKeys, "edit"}}, // a helper writes what git is given later
	"docker-credential-": {".local/share/keyrings/x", "", "", []string{"store", "erase"}, nil, nil},
	"keyring":            {".local/share/keyrings/x", "", "", []string{"set", "del"}, nil, nil},
	"cargo":              {".cargo/credentials.toml", "", "", []string{"login", "logout"}, nil, nil},
	"pass":               {".password-store/x", "", "", strings.Fields("insert add generate edit rm remove delete mv rename cp copy init git"), nil, nil},
	"secret-tool":        {".local/share/keyrings/x", "", "", []string{"store", "clear"}, nil, nil},
	"heroku":             {".netrc", "", "", []string{"login", "logout", "auth:login", "auth:logout"}, nil, nil},
	"security": {"Library/Keychains/login.keychain-db", "", "", strings.Fields(`add-generic-password add-internet-password add-certificates import
		set-generic-password-partition-list set-internet-password-partition-list set-key-partition-list delete-generic-password
		delete-internet-password delete-certificate delete-identity delete-keychain create-keychain create-keypair set-keychain-settings
		set-keychain-password add-trusted-cert remove-trusted-cert trust-settings-import set-identity-preference default-keychain login-keychain list-keychains`), nil, nil}, // the last three with -s
	"vault":     {".vault-token", "", "", []string{"login"}, nil, nil},
	"helm":      {".config/helm/registry/config.json", "--registry-config", "HELM_REGISTRY_CONFIG", []string{"registry login", "registry logout", "repo add"}, nil, nil}, // repo add after global options (helm --debug repo add)
	"helm-repo": {".config/helm/repositories.yaml", "--repository-config", "HELM_REPOSITORY_CONFIG", []string{"add"}, nil, nil},                                          // with credentials
	"uv":        {".local/share/uv/credentials/credentials.toml", "", "", []string{"auth login", "auth logout"}, nil, nil},
	"yarn":      {".yarnrc.yml", "", "", []string{"login", "logout", "npm login", "npm logout", "config set", "config unset", "config delete"}, nil, nil},
	"pip":       {".config/pip/pip.conf", "", "", []string{"config set", "config unset", "config edit"}, nil, nil},
	"poetry":    {".config/pypoetry/auth.toml", "", "", []string{"config http-basic.", "config pypi-token.", "config certificates."}, nil, nil},
	// kubeconfig writers (aws eks, …: their own rows first); a word a|b is either spelling
	"kind":             {".kube/config", "--kubeconfig", "KUBECONFIG", []string{"create cluster", "delete cluster|clusters", "export kubeconfig"}, nil, nil},
	"minikube":         {".kube/config", "", "KUBECONFIG", []string{"start", "delete", "update-context", "profile"}, []string{"profile list"}, nil},
	"k3d":              {".kube/config", "--output -o", "KUBECONFIG", []string{"cluster|clusters|c create|delete|rm", "kubeconfig|kubeconfigs merge"}, nil, nil},
	"eksctl":           {".kube/config", "--kubeconfig", "KUBECONFIG", []string{"utils write-kubeconfig", "create cluster", "delete cluster"}, nil, nil},
	"aws-eks":          {".kube/config", "--kubeconfig", "KUBECONFIG", []string{"update-kubeconfig"}, nil, nil},
	"az-aks":           {".kube/config", "--file -f", "", []string{"get-credentials"}, nil, nil},
	"gcloud-container": {".kube/config", "", "KUBECONFIG", []string{"clusters get-credentials", "fleet|hub memberships get-credentials"}, nil, nil},
	"doctl": {".kube/config", "", "KUBECONFIG", []string{"kubernetes|kube|k8s cluster|clusters|c create|delete|rm|d", "auth init|switch|remove",
		"kubernetes|kube|k8s cluster|clusters|c kubeconfig|kubecfg|k8scfg|config|cfg save|remove|s|rm"}, nil, []string{"auth"}},
	"terraform": {".terraform.d/credentials.tfrc.json", "", "", []string{"login", "logout"}, nil, nil},
	"gem":       {".gem/credentials", "", "", []string{"signin", "signout"}, nil, nil},
	// composer's --global (or global) auth keys; the project's are its own
	"composer": {".config/composer/auth.json", "", "COMPOSER_HOME/", []string{"config http-basic.|github-oauth.|gitlab-oauth.|gitlab-token.|bearer.|bitbucket-oauth.",
		"global config http-basic.|github-oauth.|gitlab-oauth.|gitlab-token.|bearer.|bitbucket-oauth."}, nil, nil},
	// hub cannot tell a host from this one: the key lands in a home's ~/.ssh
	"ssh-copy-id": {".ssh/authorized_keys", "", "", []string{""}, nil, nil},
}

// layerEnv is the value a wrapper layer (VAR=x cmd, env VAR=x cmd) gives name, innermost first.
func layerEnv(layers [][]string, name string) (arg, bool) {
	for _, w := range slices.Backward(slices.Concat(layers...)) {
		if v, ok := strings.CutPrefix(w, name+"="); ok && name != "" {
			return arg{text: v, dynamic: strings.Contains(v, unknown.text)}, true
		}
	}
	return arg{}, false
}

// assignedEnv is layerEnv where the program surely gets the value: an assignment, with no
// layer inside it that may drop it (env's options, exec -c, sudo reset the environment).
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

// storeTwins share a storeTool (as a versioned name does: pip3.12).
var storeTwins = map[string]string{"gpgsm": "gpg", "oc": "kubectl", "pnpm": "npm", "tofu": "terraform"}

// storeWrites: the credential stores a program that keeps one writes, or those its option or
// environment variables name instead.
func (k *check) storeWrites(prog string, args []arg) []arg {
	if prog == "" && len(k.c.argv) > 0 { // a program only the shell knows ($G --import)
		for name, t := range storeTools { // pass's verbs (add, rm, mv, …) are git's too
			if name != "pass" && !slices.Contains(t.writes, "") && k.storeWrites(name, args) != nil || gitHelperSet(k.c.layers) {
				k.r.out.must = "hub cannot tell which program this is, and a credential store's program would write its store with these words: it is asked every time"
			}
		}
		return nil
	}
	if prog == "git" && gitHelperSet(k.c.layers) { // git -c credential.helper=store fetch: as git config credential.helper store
		prog, args = "git", []arg{{text: "config"}, {text: "credential.helper"}, {text: "x"}}
	}
	if prog == "gcloud" && len(args) > 0 && (args[0].text == "alpha" || args[0].text == "beta") {
		args = args[1:]
	}
	if len(args) > 0 && (prog == "git" || storeTools[prog+"-"+args[0].text].file != "") { // git SUB is git-SUB, aws eks is aws-eks
		if args[0].dynamic {
			k.unknown()
		}
		prog, args = prog+"-"+args[0].text, args[1:]
	}
	if interpreters[strings.TrimRight(prog, "0123456789.")] && len(args) > 1 && args[0].text == "-m" {
		prog, args = progName(args[1].text), args[2:]
	}
	if i := strings.Index(prog, "-credential-"); i > 0 { // a credential helper
		prog = prog[:i+len("-credential-")]
	}
	prog = cmp.Or(storeTwins[prog], strings.TrimRight(prog, "0123456789.")) // pip3.12, gpg2
	t, ok := storeTools[prog]
	if !ok || prog == "gpg" && !gpgCommand(args, t) || prog == "git-config" && configReads(args) || prog != "gpg" && (!k.leads(args, t.writes, false) || k.leads(args, t.reads, true)) {
		return nil
	}
	vals, _ := k.optValues(args, "", strings.TrimSuffix(t.opt, "/"), "")
	fixed, envs := k.leads(args, t.fixed, false), strings.Fields(t.env)
	var out []arg
	for i, file := range strings.Fields(t.file) {
		v, named := arg{text: k.r.home + "/" + file}, ""
		if i < len(envs) && !fixed {
			if e, ok := assignedEnv(k.c.layers, strings.TrimSuffix(envs[i], "/")); ok && !strings.ContainsAny(e.text, ":;") { // not a list
				v, named = k.tilde(e), envs[i]
			}
		}
		if t.opt != "" && len(vals) > 0 && !fixed {
			v, named = vals[len(vals)-1], t.opt
		}
		switch {
		case named == "" && k.spared(prog, args):
			continue
		case strings.HasSuffix(named, "/"):
			v.text = path.Join(v.text, path.Base(file))
		}
		if named != "" && path.Base(file) == "config.json" && k.keychained(v) { // its logins go to the user's keychain
			v = arg{text: k.r.home + "/" + file}
		}
		out = append(out, v)
	}
	return out
}

// keychained reports a docker config at v sending logins to a system credential store (named,
// or docker's default when installed and the config holds no login); an unreadable one counts.
// Another command of the line may change it first: the line is unclear.
func (k *check) keychained(v arg) bool {
	k.r.out.alone = true
	ps, _ := k.paths(v)
	return slices.ContainsFunc(ps, func(p string) bool {
		var c struct {
			Auths       map[string]json.RawMessage
			CredsStore  string
			CredHelpers map[string]string
		}
		b, err := safefile.Read(lookupName(fromShellPath(p)), 1<<20)
		if err != nil && !errors.Is(err, fs.ErrNotExist) || err == nil && json.Unmarshal(b, &c) != nil || c.CredsStore != "" || len(c.CredHelpers) > 0 {
			return true
		}
		return len(c.Auths) == 0 && slices.ContainsFunc(defaultHelpers[runtime.GOOS], func(h string) bool {
			_, err := exec.LookPath("docker-credential-" + h)
			return err == nil
		})
	})
}

var defaultHelpers = map[string][]string{"darwin": {"osxkeychain"}, "windows": {"wincred"}, "linux": {"pass", "secretservice"}}

// spared reports the options that spare the home's store (npm -g, pip --site, git config
// setting no credential key, helm repo add with no login, …).
func (k *check) spared(prog string, args []arg) bool {
	loc, _ := k.optValues(args, "L", "--location", "")
	return prog == "npm" && (hasShort(args, "g") || hasLong(args, "--global") || slices.ContainsFunc(loc, func(a arg) bool { return a.text == "project" || a.text == "global" })) ||
		prog == "pip" && hasLong(args, "--site", "--global") || prog == "composer" && !hasShort(args, "g") && !hasLong(args, "--global") && !k.leads(args, []string{"global"}, false) ||
		prog == "git-config" && !hasLong(args, "--edit") && !hasShort(args, "e") && !k.leads(args, storeTools[prog].fixed, false) ||
		(prog == "helm-repo" || prog == "helm" && k.leads(args, []string{"repo"}, false)) && !hasLong(args, "--username", "--password", "--password-stdin") ||
		prog == "security" && !hasShort(args, "s") && k.leads(args, []string{"default-keychain|login-keychain|list-keychains"}, false) ||
		prog == "minikube" && len(args) == 1 && args[0].text == "profile" && !args[0].dynamic || // it prints the profile
		prog == "eksctl" && k.leads(args, []string{"create cluster"}, false) && noKubeconfig(args)
}

// noKubeconfig: eksctl's last --write-kubeconfig is false.
func noKubeconfig(args []arg) bool {
	last := ""
	for _, a := range beforeDashes(args) {
		if v, ok := strings.CutPrefix(a.text, "--write-kubeconfig"); ok {
			last = v
			if a.dynamic {
				last = ""
			}
		}
	}
	return slices.Contains([]string{"=false", "=0", "=f", "=F", "=FALSE", "=False"}, last)
}

// configReads reports git config only reading (--get…, --list, get, a key alone).
func configReads(args []arg) bool {
	ops := operands(skipValues(args, "-f", "--file", "--blob", "--type", "--default", "--comment"))
	read := len(ops) == 1 && ops[0].text != "edit" || len(ops) > 0 && (ops[0].text == "get" || ops[0].text == "list") ||
		hasLong(args, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list") || hasShort(args, "l")
	return read && !hasShort(args, "e") && !hasLong(args, "--edit", "--add", "--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section")
}

// gitCredKeys make git run a program with credentials (an include may set one).
const gitCredKeys = "credential.|include.|includeif.|core.askpass"

// gitProgramKeys are git's other keys naming a program git runs, or letting one run (the first
// three); "sec." is a whole section, * a subsection. Setting one is never covered by "always".
var gitProgramKeys = strings.Fields(`alias. safe. protocol. filter. gpg. pager. difftool. mergetool. man. browser. sendemail. core.sshcommand
	core.pager core.editor core.fsmonitor core.hookspath core.gitproxy core.alternaterefscommand sequence.editor diff.external diff.*.textconv
	diff.*.command merge.*.driver remote.*.uploadpack remote.*.receivepack remote.*.vcs submodule.*.update uploadpack.packobjectshook
	interactive.difffilter trailer.*.command trailer.*.cmd imap.tunnel web.browser init.templatedir ssh.variant tar.*.command
	lfs.customtransfer. lfs.extension.`)

// gitConfigOps are the operands of git config's args when it writes, none when it reads.
func gitConfigOps(args []arg) []arg {
	ops := operands(skipValues(args, "-f", "--file", "--blob", "--type", "--default", "--comment"))
	switch {
	case configReads(args):
		return nil
	case len(ops) > 0 && (ops[0].text == "set" || ops[0].text == "unset"):
		return ops[1:]
	}
	return ops
}

func gitProgramKey(key string, keys []string) bool {
	key = strings.ToLower(key)
	return slices.ContainsFunc(keys, func(p string) bool {
		pre, suf, sub := strings.Cut(p, "*")
		return strings.HasPrefix(key, pre) && (!sub && (key == p || strings.HasSuffix(p, ".")) || sub && len(key) >= len(p) && strings.HasSuffix(key, suf))
	})
}

// setsGitProgram reports git config or clone -c setting a gitProgramKeys key, or a --template.
func setsGitProgram(c *call) bool {
	if c.prog() != "git" || len(c.argv) < 2 {
		return false
	}
	sub, args := c.argv[1].text, c.argv[2:]
	keys := gitConfigOps(args)
	if sub != "config" {
		keys, _ = (&check{r: &reader{home: homeDir()}}).optValues(args, map[string]string{"clone": "c"}[sub], "--config", "bBouj")
	}
	return (sub == "init" || sub == "clone") && slices.ContainsFunc(args, func(a arg) bool { return strings.HasPrefix(a.text, "--template") }) ||
		slices.ContainsFunc(keys, func(a arg) bool { k, _, _ := strings.Cut(a.text, "="); return gitProgramKey(k, gitProgramKeys) })
}

// gitHelperSet reports git given a credential helper for this run (-c, --config-env,
// GIT_CONFIG_KEY_0; an empty one only resets the list): it writes what it is given.
func gitHelperSet(layers [][]string) bool {
	keys := strings.Split(gitCredKeys, "|")
	for _, l := range layers {
		for i, w := range l {
			w = strings.ToLower(w)
			opt := i > 0 && (l[i-1] == "-c" || l[i-1] == "--config-env")
			if v, ok := strings.CutPrefix(w, "--config-env="); ok {
				w, opt = v, true
			}
			key, val, _ := strings.Cut(w, "=")
			in := func(p string) bool {
				return opt && strings.HasPrefix(key, p) || strings.HasPrefix(w, "git_config_") && strings.Contains(w, p)
			}
			if slices.ContainsFunc(keys, in) && (val != "" || !opt) {
				return true
			}
		}
	}
	return false
}

// gpgCommand reports a gpg command word among args, or an abbreviation of one, as gpg reads them.
func gpgCommand(args []arg, t storeTool) bool {
	return slices.ContainsFunc(args, func(a arg) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(a.text, "--"), "=")
		return strings.HasPrefix(a.text, "--") && len(name) >= 3 && !slices.Contains(t.reads, name) &&
			slices.ContainsFunc(t.writes, func(w string) bool { return strings.HasPrefix(w, name) })
	})
}

// leads reports args beginning with one of subs, passing over a word after an option (aws
// --profile dev configure); with values, even one that reads as the subcommand. A dynamic
// word where a subcommand stands makes the line unclear.
func (k *check) leads(args []arg, subs []string, values bool) bool {
	return slices.ContainsFunc(subs, func(sub string) bool {
		i := 0
		for _, w := range strings.Fields(sub) {
			is := func(a arg) bool { // git's keys ignore case (Credential.Helper)
				return slices.ContainsFunc(strings.Split(w, "|"), func(w string) bool {
					return a.text == w || strings.Contains(w, ".") && strings.HasPrefix(strings.ToLower(a.text), w)
				})
			}
			for i < len(args) && args[i].text != "--" && (strings.HasPrefix(args[i].text, "-") && !args[i].dynamic ||
				i > 0 && strings.HasPrefix(args[i-1].text, "-") && !strings.Contains(args[i-1].text, "=") && (!is(args[i]) || values)) {
				i++
			}
			if i < len(args) && args[i].dynamic {
				k.unknown()
			}
			if i == len(args) || !is(args[i]) || args[i].dynamic {
				return false
			}
			i++
		}
		return true
	})
}

// gitReaders leave the work tree as it is (clone and init have their own rules).
var gitReaders = set("status", "log", "diff", "show", "blame", "annotate", "grep", "describe", "shortlog", "reflog", "branch",
	"tag", "remote", "fetch", "add", "commit", "push", "config", "ls-files", "ls-tree", "ls-remote", "rev-parse", "rev-list",
	"cat-file", "show-ref", "for-each-ref", "symbolic-ref", "name-rev", "merge-base", "count-objects", "fsck", "gc", "prune",
	"repack", "check-ignore", "check-attr", "var", "version", "help", "whatchanged", "cherry", "range-diff", "diff-tree",
	"diff-index", "diff-files", "format-patch", "archive", "bundle", "verify-commit", "verify-tag", "init", "clone",
	"credential", "credential-store", "notes", "stash list", "stash show", "worktree list", "submodule status", "bisect log")

func gitReads(args []arg) bool {
	return len(args) > 0 && (gitReaders[args[0].text] || len(args) > 1 && gitReaders[args[0].text+" "+args[1].text])
}

// gitWorkTree adds to cwds the work tree a git command writes; one hub cannot know, or a
// repository named without one (its config may name any), makes the line unclear.
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

// plantsHome: git writing a work tree that holds a credential store writes files hub cannot
// name there, as cp -r x/. ~ does; so do the dotfile managers (yadm, vcsh, chezmoi, stow).
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

// holds reports the directory an option names (the last), else def, holding a credential
// store; one hub cannot know makes the line unclear.
func (k *check) holds(args []arg, short, long, valued string, def arg) bool {
	if vals, _ := k.optValues(args, short, long, valued); long != "" && len(vals) > 0 {
		def = vals[len(vals)-1]
	}
	ps, _ := k.known(k.tilde(def))
	return slices.ContainsFunc(ps, k.r.holdsCredStore)
}
