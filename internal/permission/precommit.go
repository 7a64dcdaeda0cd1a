package permission

import (
	"crypto/sha256"
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pre-commit (and prek) run the hooks .pre-commit-config.yaml names, lefthook
// those of lefthook.yml: read for the deny list and an always's key, as
// package.json's scripts. A remote repository's hooks, or a local hook's
// additional_dependencies, are code pre-commit downloads and runs: hub cannot
// read them, so the line is unclear (asked every time, never covered).

// preCommit reads what pre-commit, prek or python -m pre_commit runs: run,
// hook-impl (an installed hook), install-hooks, install --install-hooks.
func (r *reader) preCommit(name string, args []arg, x *runCtx) {
	if strings.HasPrefix(name, "python") || name == "py" {
		switch w := texts(args); {
		case len(w) > 1 && w[0] == "-m" && w[1] == "pre_commit":
			args = args[2:]
		case len(w) > 0 && w[0] == "-mpre_commit":
			args = args[1:]
		default:
			return
		}
	} else if name != "pre-commit" && name != "prek" {
		if name == "lefthook" && (len(args) == 0 || args[0].text == "run" || args[0].dynamic) {
			r.lefthook(x)
		}
		if name == "lefthook" && len(args) > 0 && (args[0].text == "install" || args[0].text == "add" || args[0].dynamic) {
			r.writesHooks(x)
		}
		return
	}
	sub := arg{text: "run"} // pre-commit alone runs its hooks
	if len(args) > 0 {
		sub = args[0]
	}
	if sub.dynamic || sub.text == "install" || sub.text == "uninstall" || sub.text == "init-templatedir" {
		r.writesHooks(x)
	}
	r.out.unclear = r.out.unclear || sub.text == "try-repo" // a repository's hooks, cloned and run
	if !sub.dynamic && sub.text != "run" && sub.text != "hook-impl" && sub.text != "install-hooks" && (sub.text != "install" || !hasLong(args, "--install-hooks")) {
		return
	}
	cfgs, _ := (&check{r: r}).optValues(args, "c", "--config", "")
	if len(cfgs) == 0 {
		cfgs = []arg{{text: ".pre-commit-config.yaml"}}
		if name == "prek" {
			cfgs = append(cfgs, arg{text: ".pre-commit-config.yml"})
		}
	}
	r.preCommitConfigs(cfgs, x, false)
}

// preCommitConfigs reads each config as pre-commit finds it from x's directories: there
// when it exists, else from the work tree's top. For a git hook, remote hooks are kept by
// the config's digest only: unclear, they would keep an always from every git command.
func (r *reader) preCommitConfigs(cfgs []arg, x *runCtx, hook bool) {
	r.out.unclear = r.out.unclear || len(x.sc.cwds) == 0
	for _, c := range cfgs {
		if c.dynamic {
			r.out.unclear = true
			continue
		}
		c = (&check{r: r}).tilde(c)
		for _, d := range x.sc.cwds {
			p := joinShell(d, c.text)
			if !exists(p, false) {
				p = joinShell(gitWorkRoot(d), c.text)
			}
			r.preCommitConfig(p, hook)
		}
	}
}

// preCommitConfig reads the local hooks of the config at p: entry and args as one command
// line. A config hub cannot read (too big, not YAML as pre-commit wants it) is unclear.
func (r *reader) preCommitConfig(p string, hook bool) {
	if r.active["pre-commit "+p] {
		return
	}
	r.active["pre-commit "+p] = true
	r.readsProg(nil, false, p)
	b, err := readCapped(p, maxGitConfig)
	sum := sha256.Sum256(b)
	r.out.repos = append(r.out.repos, path.Dir(p))
	r.out.hooks = append(r.out.hooks, fmt.Sprintf("%s %v %x", p, err == nil, sum))
	var conf struct {
		Repos []struct {
			Repo  string
			Hooks []struct {
				Entry, Language string
				Args            []string
				Deps            []string `yaml:"additional_dependencies"`
			}
		}
	}
	if err != nil || len(b) > maxGitConfig || yaml.Unmarshal(b, &conf) != nil {
		r.out.unclear = r.out.unclear || exists(p, false) // none: pre-commit runs nothing
		return
	}
	for _, repo := range conf.Repos {
		if repo.Repo != "local" {
			r.out.unclear = r.out.unclear || !hook && repo.Repo != "meta"
			continue
		}
		for _, h := range repo.Hooks {
			r.out.unclear = r.out.unclear || len(h.Deps) > 0
			line := h.Entry
			switch h.Language {
			case "fail", "pygrep": // prints entry; searches for it
				continue
			case "docker_image":
				line = "docker run --rm -v .:/src:rw,Z --workdir /src " + line
			}
			for _, a := range h.Args {
				line += " " + quoteWord(a)
			}
			r.readScript(line, path.Dir(p))
		}
	}
}

// writesHooks notes the git hooks an install writes (pre-commit install && git commit):
// git would run hooks hub has not read.
func (r *reader) writesHooks(x *runCtx) {
	for _, d := range x.sc.cwds {
		r.progWrote = append(r.progWrote, progFile{path: path.Join(gitWorkRoot(d), ".git", "hooks"), tree: anyName})
	}
}

// lefthookFiles are the configs lefthook reads at the work tree's top.
var lefthookFiles = []string{"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", ".config/lefthook.yml", ".config/lefthook.yaml",
	"lefthook-local.yml", ".lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yaml"}

// lefthook reads the run: lines of lefthook's configs; one with remotes or extends (configs
// from elsewhere), or in TOML or JSON, is unclear.
func (r *reader) lefthook(x *runCtx) {
	r.out.unclear = r.out.unclear || len(x.sc.cwds) == 0
	for _, d := range x.sc.cwds {
		for _, f := range []string{"lefthook.toml", ".lefthook.toml", "lefthook.json", ".lefthook.json", "lefthook.jsonc", ".lefthook.jsonc"} {
			r.out.unclear = r.out.unclear || exists(path.Join(gitWorkRoot(d), f), false)
		}
		for _, f := range lefthookFiles {
			p := path.Join(gitWorkRoot(d), f)
			r.readsProg(nil, false, p) // also one the line makes
			if !exists(p, false) || r.active["lefthook "+p] {
				continue
			}
			r.active["lefthook "+p] = true
			b, err := readCapped(p, maxGitConfig)
			sum := sha256.Sum256(b)
			r.out.repos = append(r.out.repos, path.Dir(p))
			r.out.hooks = append(r.out.hooks, fmt.Sprintf("%s %x", p, sum))
			var conf any
			if err != nil || len(b) > maxGitConfig || yaml.Unmarshal(b, &conf) != nil {
				r.out.unclear = true
				continue
			}
			r.lefthookRuns(conf, path.Dir(p), 0)
		}
	}
}

// lefthookRuns reads every run: and runner: line under v, a config or part of one.
func (r *reader) lefthookRuns(v any, dir string, depth int) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && (k == "run" || k == "runner") { // a script's runner: its command line
				r.readScript(s, dir)
			}
			r.out.unclear = r.out.unclear || depth == 0 && (k == "remotes" || k == "remote" || k == "extends")
			r.lefthookRuns(e, dir, depth+1)
		}
	case []any:
		for _, e := range v {
			r.lefthookRuns(e, dir, depth+1)
		}
	}
}

var preCommitConfigOpt = regexp.MustCompile(`--config[= ]['"]?([^\s'")]+)`)

// hookRunners reads, for a hook's script, the configs of the hook managers it runs:
// pre-commit's installed hook (hook-impl --config=…) and lefthook's.
func (r *reader) hookRunners(script string, x *runCtx) {
	if strings.Contains(script, "hook-impl") {
		cfg := ".pre-commit-config.yaml"
		if m := preCommitConfigOpt.FindStringSubmatch(script); m != nil {
			cfg = m[1]
		}
		r.preCommitConfigs([]arg{{text: cfg}}, x, true)
	}
	if strings.Contains(script, "lefthook") {
		r.lefthook(x)
	}
}
