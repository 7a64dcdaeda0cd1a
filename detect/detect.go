package detect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/proc"
)

// ErrUnknownAgent means --agent named nothing doctor knows.
var ErrUnknownAgent = errors.New("unknown agent")

// A cached report serves for cacheTTL. An ACP agent gets initTimeout more
// than Timeout to answer initialize: it is asked once per build, then cached.
const cacheTTL, initTimeout = 10 * time.Minute, 20 * time.Second

// Options configures Run. Zero values mean: os environment, config.CacheDir(),
// 5s per-probe timeout.
type Options struct {
	Config   *config.Config
	Registry *adapters.Registry // capabilities, optional
	Specs    []agentspec.Spec   // the agent CLIs to check (adapters/all.DoctorSpecs())
	Agents   []string           // report only these
	All      bool               // also list catalogued agents that are not installed
	// Probe also asks GET {base}/models of native profiles, bypassing the
	// cache (servers come and go).
	Probe    bool
	Refresh  bool // ignore the cache
	Timeout  time.Duration
	Env      []string // os.Environ form
	CacheDir string
	NoCache  bool // neither read nor write the cache
	HTTP     *http.Client
	Now      func() time.Time
	// GOOS picks the OS's lookup rules (PATHEXT, known install dirs, login
	// shell); "" means this machine's.
	GOOS string
}

type prober struct {
	o       Options
	env     map[string]string
	home    string
	native  []openai.Named
	catalog map[string]string // each catalogued program found → its path
}

func newProber(o Options) *prober {
	o.Config, o.GOOS = cmp.Or(o.Config, &config.Config{}), cmp.Or(o.GOOS, runtime.GOOS)
	o.Timeout = cmp.Or(max(o.Timeout, 0), 5*time.Second)
	if o.Env == nil {
		o.Env = os.Environ()
	}
	o.CacheDir = cmp.Or(o.CacheDir, config.CacheDir())
	o.HTTP = cmp.Or(o.HTTP, &http.Client{})
	if o.Now == nil {
		o.Now = time.Now
	}
	p := &prober{o: o, env: map[string]string{}}
	for _, kv := range o.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			p.env[k] = v
		}
	}
	p.home = homeDir(o.GOOS, p.getenv)
	return p
}

func (p *prober) lookPath(bin string) string {
	return proc.LookPathFor(p.o.GOOS, bin, p.getenv("PATH"), p.getenv("PATHEXT"))
}

func homeDir(goos string, env agentspec.Env) string {
	if h := env("HOME"); h != "" || goos != "windows" {
		return h
	}
	return env("USERPROFILE")
}

// loginShell is the shell whose login PATH hub asks as a last resort; zsh
// on macOS when $SHELL is unset (its default, which GUI apps may lack).
func loginShell(goos string, env agentspec.Env) string {
	sh := env("SHELL")
	switch {
	case goos == "windows":
		return ""
	case sh == "" && goos == "darwin":
		return "/bin/zsh"
	}
	return sh
}

func (p *prober) getenv(k string) string { return p.env[k] }

// Run builds the report, from the cache when it is fresh and its key (PATH,
// binary mtimes, auth files, relevant env, config) still matches.
func Run(ctx context.Context, opts Options) (*Report, error) {
	p := newProber(opts)
	o := p.o
	jobs, err := p.jobs()
	if err != nil {
		return nil, err
	}
	key := p.cacheKey(jobs)
	useCache := !o.NoCache && !o.Probe
	if !o.Refresh && useCache {
		if r := p.loadCache(key); r != nil {
			r.NativeSandbox = nativeSandbox(ctx, o.Config, r)
			return r, nil
		}
	}
	r := &Report{Schema: SchemaVersion, GeneratedAt: o.Now().UTC(), Agents: make([]Agent, len(jobs))}
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			limit := o.Timeout
			if j.acp {
				limit += initTimeout
			}
			actx, cancel := context.WithTimeout(ctx, limit)
			defer cancel()
			begin := time.Now()
			r.Agents[i] = j.run(actx)
			r.Agents[i].DurationMs = time.Since(begin).Milliseconds()
		})
	}
	wg.Wait()
	if useCache {
		p.saveCache(key, r)
	}
	r.NativeSandbox = nativeSandbox(ctx, o.Config, r)
	return r, nil
}

// job probes one agent.
type job struct {
	name string
	run  func(ctx context.Context) Agent
	// bins are binaries whose mtime keys the cache; files likewise.
	bins  []string
	files []string
	acp   bool // an ACP agent, which may be asked initialize
}

func (p *prober) jobs() ([]job, error) {
	cfg := p.o.Config
	var out []job
	p.findCatalog()
	for _, s := range p.o.Specs {
		ac := cfg.Agents[s.Name]
		bin, explicit := s.Bin, len(ac.Command) > 0
		if explicit {
			bin = ac.Command[0]
		}
		// A catalogued agent is listed when its program is found (on PATH
		// and in the package managers' dirs only, no process), or when the
		// report lists all or names it.
		found := explicit || p.catalog[s.Bin] != ""
		if ac.Disabled || s.Catalog && !found && !p.o.All && !slices.Contains(p.o.Agents, s.Name) {
			continue
		}
		run := func(ctx context.Context) Agent { return p.probeCLI(ctx, s, bin, explicit) }
		if s.Catalog {
			run = func(ctx context.Context) Agent { return p.probeCatalog(ctx, s, s.ACPConfig(ac), found, explicit) }
		}
		cfgDir := s.ConfigDir(p.getenv, p.home)
		out = append(out, job{name: s.Name, bins: []string{bin}, files: s.AuthFiles(cfgDir, p.home), acp: s.Catalog, run: run})
	}
	p.native = openai.Profiles(p.o.Config, p.getenv)
	for _, name := range cfg.AgentNames() {
		ac := cfg.Agents[name]
		if slices.ContainsFunc(p.o.Specs, func(s agentspec.Spec) bool { return s.Name == name }) || !ac.IsACP(p.isNative(name)) {
			continue
		}
		out = append(out, job{name: name, bins: []string{ac.Command[0]}, acp: true, run: func(ctx context.Context) Agent { return p.probeACP(ctx, name, ac) }})
	}
	for _, n := range p.native {
		out = append(out, job{name: n.Name, run: func(ctx context.Context) Agent { return p.probeNative(ctx, n) }})
	}
	// Stable: of two agents of one name, the CLI stays before the provider.
	slices.SortStableFunc(out, func(a, b job) int { return strings.Compare(a.name, b.name) })
	for _, want := range p.o.Agents {
		if !slices.ContainsFunc(out, func(j job) bool { return j.name == want }) {
			var names []string
			for _, j := range out {
				names = append(names, j.name)
			}
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownAgent, want, strings.Join(names, ", "))
		}
	}
	if len(p.o.Agents) == 0 {
		return out, nil
	}
	return slices.DeleteFunc(out, func(j job) bool { return !slices.Contains(p.o.Agents, j.name) }), nil
}

func (p *prober) isNative(name string) bool {
	return name == "replay" || slices.ContainsFunc(p.native, func(n openai.Named) bool { return n.Name == name })
}

func (p *prober) caps(name string) *adapters.Capabilities {
	if p.o.Registry == nil {
		return nil
	}
	if a, err := p.o.Registry.Get(name); err == nil {
		return new(a.Capabilities())
	}
	return nil
}

func (p *prober) probeCLI(ctx context.Context, s agentspec.Spec, bin string, explicit bool) Agent {
	// Tested is the range hub supports, Verified the exact release the
	// adapter was tested with (an older patch release is not "too old").
	a := Agent{Name: s.Name, Kind: "cli", TestedRange: s.Tested, TestedVersion: s.Verified, Capabilities: p.caps(s.Name)}
	a.ConfigDir = s.ConfigDir(p.getenv, p.home)
	a.SkillsDir = s.SkillsDir(a.ConfigDir, p.home)
	a.Auth, a.Warnings = s.Auth(p.getenv, a.ConfigDir, p.home)
	p.locate(ctx, &a, bin, explicit)
	if !a.Installed {
		a.Fix = cmp.Or(a.Fix, fmt.Sprintf("not installed: npm install -g %s", s.Package))
		return a
	}
	p.version(ctx, &a, s.Package)
	if a.VersionStatus == "newer_than_tested" {
		pin := ""
		if a.TestedVersion != "" {
			pin = fmt.Sprintf("; if it misbehaves: npm install -g %s@%s", s.Package, a.TestedVersion)
		}
		a.Warnings = append(a.Warnings, fmt.Sprintf("version %s is newer than hub was tested with (%s)%s", a.Version, a.TestedRange, pin))
	}
	switch {
	case a.VersionStatus == "timeout":
		a.Fix = fmt.Sprintf("`%s --version` did not answer within %s: check the install (%s)", bin, p.o.Timeout, a.Path)
	case a.VersionStatus == "too_old":
		a.Fix = fmt.Sprintf("version %s is older than tested (%s): npm install -g %s@latest", a.Version, a.TestedRange, s.Package)
	case a.Auth.State == agentspec.AuthNone && a.Auth.Source != "":
		a.Fix = fmt.Sprintf("no API key: set %s", a.Auth.Source)
	case a.Auth.State == agentspec.AuthNone:
		a.Fix = "not logged in: " + s.LoginFix
	}
	a.Ready = a.Fix == ""
	return a
}

// locate finds bin on the probed PATH, else through a login shell.
func (p *prober) locate(ctx context.Context, a *Agent, bin string, explicit bool) {
	if path := p.lookPath(bin); path != "" {
		a.Installed, a.Path, a.FoundVia = true, path, map[bool]string{false: "path", true: "config"}[explicit]
		return
	}
	if path := proc.LookPathFor(p.o.GOOS, bin, strings.Join(proc.KnownDirs(p.o.GOOS, p.getenv, p.home), proc.ListSep(p.o.GOOS)), p.getenv("PATHEXT")); path != "" {
		// proc.Start looks there too, so the agent runs as it is.
		a.Installed, a.Path, a.FoundVia = true, path, "known-dir"
		return
	}
	if path := p.loginShellLookup(ctx, bin); path != "" {
		a.Installed, a.Path, a.FoundVia = true, path, "login-shell"
		a.Warnings = append(a.Warnings, fmt.Sprintf("%s is only on your login shell's PATH; editors started from a GUI will not find it", bin))
		a.Fix = fmt.Sprintf("add %s to PATH, or set [agents.%s] command = %q in hub's config", filepath.Dir(path), a.Name, path)
	}
}

func (p *prober) loginShellLookup(ctx context.Context, bin string) string {
	sh := loginShell(p.o.GOOS, p.getenv)
	if sh == "" || strings.ContainsAny(bin, "'\"$`\\ ") {
		return ""
	}
	out, err := p.output(ctx, sh, "-lc", "command -v '"+bin+"'")
	if err != nil && out == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	path := strings.TrimSpace(lines[len(lines)-1])
	if filepath.IsAbs(path) && proc.LookPathFor(p.o.GOOS, path, "", "") != "" {
		return path
	}
	return ""
}

// output runs a short command under proc (own process group, killed at the
// deadline) and returns its stdout, or stderr when stdout is empty.
func (p *prober) output(ctx context.Context, path string, args ...string) (string, error) {
	pr, err := proc.Start(ctx, proc.Spec{Path: path, Args: args, Env: p.o.Env, Grace: 100 * time.Millisecond, StderrLimit: 8 << 10})
	if err != nil {
		return "", err
	}
	pr.Stdin.Close()
	data, _ := io.ReadAll(io.LimitReader(pr.Stdout, 64<<10))
	werr := pr.Wait()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	out := string(data)
	if strings.TrimSpace(out) == "" {
		out = pr.StderrTail(5)
	}
	return out, werr
}

var semverRe = regexp.MustCompile(`\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?`)

// version reads the version from the npm package the binary belongs to
// when there is one (instant, and it does not run the CLI, which for some
// writes to the user's home), else from `--version` under the timeout.
func (p *prober) version(ctx context.Context, a *Agent, pkg string) {
	if v := npmVersion(a.Path, pkg); v != "" {
		a.Version, a.VersionFrom = v, "package.json"
		a.VersionStatus = checkRange(a.Version, a.TestedRange)
		return
	}
	out, err := p.output(ctx, a.Path, "--version")
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		a.VersionStatus = "timeout"
		return
	}
	a.VersionFrom = "--version"
	a.Version = cmp.Or(semverRe.FindString(adapters.FirstLine(out)), semverRe.FindString(out))
	a.VersionStatus = checkRange(a.Version, a.TestedRange)
}

// npmVersion returns the version in the package.json of npm package pkg
// that the (symlink-resolved) binary at path lives in, or that an npm shim
// at path starts (on Windows npm installs PREFIX\NAME.cmd beside
// PREFIX\node_modules\PKG, with no link to follow), or "".
func npmVersion(path, pkg string) string {
	if pkg == "" {
		return ""
	}
	files := []string{filepath.Join(filepath.Dir(path), "node_modules", filepath.FromSlash(pkg), "package.json")}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		for dir, i := filepath.Dir(real), 0; i < 5; dir, i = filepath.Dir(dir), i+1 {
			files = append(files, filepath.Join(dir, "package.json"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for _, f := range files {
		if m := agentspec.ReadJSON(f); m != nil && m["name"] == pkg {
			v, _ := m["version"].(string)
			return semverRe.FindString(v)
		}
	}
	return ""
}

func (p *prober) probeACP(ctx context.Context, name string, ac config.AgentConfig) Agent {
	a := Agent{Name: name, Kind: "acp", Auth: agentspec.Auth{State: agentspec.AuthUnknown}, Capabilities: p.caps(name)}
	p.locate(ctx, &a, ac.Command[0], true)
	if !a.Installed {
		a.Fix = fmt.Sprintf("command %q of [agents.%s] not found: install it or fix the path in hub's config", ac.Command[0], name)
		return a
	}
	if a.Fix == "" {
		p.initialize(ctx, &a, ac.Argv(), ac.Env)
	}
	a.Ready = a.Fix == ""
	return a
}

// findCatalog looks for every catalogued program in one pass.
func (p *prober) findCatalog() {
	var bins []string
	for _, s := range p.o.Specs {
		if s.Catalog {
			bins = append(bins, s.Bin)
		}
	}
	dirs := append(strings.Split(p.getenv("PATH"), proc.ListSep(p.o.GOOS)), proc.KnownDirs(p.o.GOOS, p.getenv, p.home)...)
	p.catalog = proc.FindProgramsFor(p.o.GOOS, bins, dirs, p.getenv("PATHEXT"))
}

// probeCatalog checks a catalogued agent; only one that findCatalog found or
// the config names is located again, so an absent one costs no process.
func (p *prober) probeCatalog(ctx context.Context, s agentspec.Spec, eff config.AgentConfig, found, explicit bool) Agent {
	a := Agent{Name: s.Name, Kind: "acp", Catalog: true, Auth: agentspec.Auth{State: agentspec.AuthUnknown}}
	a.ConfigDir = s.ConfigDir(p.getenv, p.home)
	if found {
		p.locate(ctx, &a, eff.Command[0], explicit)
	}
	if !a.Installed {
		a.Fix = cmp.Or(a.Fix, "not installed: "+s.Install)
		return a
	}
	var warns []string
	a.Auth, warns = s.Auth(p.getenv, a.ConfigDir, p.home)
	a.Warnings = append(a.Warnings, warns...)
	p.version(ctx, &a, s.Package)
	if a.Fix == "" {
		p.initialize(ctx, &a, eff.Argv(), eff.Env)
	}
	if a.Fix == "" && a.Auth.State == agentspec.AuthNone {
		a.Fix = "not logged in: " + s.LoginFix
	}
	a.Ready = a.Fix == ""
	return a
}
