// Package permission decides whether a tool call may run: configured rules, defaults (reads
// allowed, writes and commands asked), the session's "always" answers, durable grants, and a
// built-in hard deny list no rule or grant can lift. Secret reads and calls hub cannot read
// are asked every time (MustAsk). It also holds the approval policies of headless runs.
package permission

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/safefile"
)

// ErrInvalidRule marks a permission rule or policy hub cannot use.
var ErrInvalidRule = errors.New("invalid permission rule")

type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

type Request struct {
	Tool    string            // tool name, e.g. "read_file", "bash"
	Kind    adapters.ToolKind // read, edit, execute, search, ...
	Path    string            // absolute path for file tools
	Cwd     string            // session root; rule globs match relative to it
	Command string            // shell command for bash
	Agent   string            // the agent asking, for durable grants ("" for the native loop's own checks)
	Paths   []string          // every file the call names (absolute), Path the first; Path alone is fine
	Must    string            // why a persona's ask rule has the call asked every time
	Dirs    []string          // where Command runs when the tool call names it (absolute); else Cwd
	Kept    bool              // Dirs are where the agent's shell kept an earlier cd: the user was not shown them
	Argv    bool              // Command quotes an argv run without a shell: it is read as sh only
	// Shell is the shell Command runs in when known. Unknown (a raw line), the deny list
	// reads it as each shell may (windowsDeny), the rest as sh.
	Shell adapters.Shell
}

func (req Request) reading() *reading {
	return readIn(req.Shell, req.Command, req.dirs())
}

func (req Request) dirs() []string {
	if len(req.Dirs) > 0 {
		return req.Dirs
	}
	wd, _ := os.Getwd()
	return []string{cmp.Or(req.Cwd, wd)}
}

// dirsKey keeps an "always" to the directories the command was read in when the user was not
// shown them (a shell that kept a cd): ./build.sh there is another script.
func (req Request) dirsKey() string {
	if !req.Kept || len(req.Dirs) == 0 || len(req.Dirs) == 1 && filepath.Clean(req.Dirs[0]) == filepath.Clean(req.Cwd) {
		return ""
	}
	return "\x00dirs=" + strings.Join(slices.Sorted(slices.Values(req.Dirs)), " ")
}

func (req Request) files() []string {
	if len(req.Paths) > 0 {
		return req.Paths
	}
	if req.Path != "" {
		return []string{req.Path}
	}
	return nil
}

// each is req once per file it names: the deny list and rules look at one file at a time.
func (req Request) each() []Request {
	files := req.files()
	if len(files) <= 1 {
		return []Request{req}
	}
	out := make([]Request, len(files))
	for i, f := range files {
		out[i], out[i].Path = req, f
	}
	return out
}

type Verdict struct {
	Decision Decision
	Reason   string // for the user
	Hard     bool   // the built-in deny list matched; nothing can lift it
	// Must marks an Ask nothing turns into an allow (--approve, "always", a grant, a rule, a
	// hook): only a user who sees the call may allow it; where nobody can answer, it is refused.
	Must bool
	By   string // what decided: a By constant, or what the caller sets
}

const (
	ByHardDeny  = "hard deny"
	ByRule      = "rule"
	ByAlways    = "always" // the session's "always" answer
	ByGrant     = "grant"
	BySkill     = "skill"
	ByAllowTool = "--allow-tool"
	ByMustAsk   = "must ask"
	ByHook      = "hook" // a PreToolUse hook (the native loop runs them)
)

type Rule struct {
	Tool     string
	Path     string
	Command  string
	Decision Decision
	Name     string // where it comes from: "permissions.rules[2]", "--allow-tool Bash(go test:*)"
	pathGlob string // Path as a doublestar pattern over slashed paths
}

// Service is hub's one permission decision, for the native loop and every relayed agent.
type Service struct {
	rules  []Rule
	mu     sync.Mutex
	always map[string]Decision
	grants *GrantPolicy
}

func New(cfg config.PermissionsConfig) (*Service, error) {
	s := &Service{always: map[string]Decision{}}
	for i, r := range cfg.Rules {
		rule, err := parseRule(r)
		if err != nil {
			return nil, fmt.Errorf("permissions.rules[%d]: %w", i, err)
		}
		rule.Name = fmt.Sprintf("permissions.rules[%d]", i)
		s.rules = append(s.rules, rule)
	}
	return s, nil
}

// Add appends rules (from --allow-tool, or a skill's allowed-tools).
func (s *Service) Add(rules ...Rule) { s.rules = append(s.rules, rules...) }

func parseRule(r config.PermissionRule) (Rule, error) {
	d := Decision(strings.ToLower(strings.TrimSpace(r.Decision)))
	if d != Allow && d != Ask && d != Deny {
		return Rule{}, fmt.Errorf("%w: decision %q must be allow, ask or deny", ErrInvalidRule, r.Decision)
	}
	out := Rule{Tool: r.Tool, Path: r.Path, Command: strings.TrimSpace(r.Command), Decision: d}
	if r.Path != "" {
		g, err := pathPattern(r.Path)
		if err != nil {
			return Rule{}, err
		}
		out.pathGlob = g
	}
	return out, nil
}

// AllowRule parses an allow pattern in Claude's syntax (--allow-tool, a skill's allowed-tools):
// "Bash(go test:*)", "Read(src/**)", "WebFetch". name says where it comes from.
func AllowRule(pattern, name string) (Rule, error) {
	pattern = strings.TrimSpace(pattern)
	tool, arg, hasArg := strings.Cut(pattern, "(")
	tool = strings.TrimSpace(tool)
	if tool == "" || (hasArg && !strings.HasSuffix(arg, ")")) {
		return Rule{}, fmt.Errorf("%w: %q is not Tool or Tool(argument)", ErrInvalidRule, pattern)
	}
	r := Rule{Tool: tool, Decision: Allow, Name: name}
	if !hasArg {
		return r, nil
	}
	arg = strings.TrimSpace(strings.TrimSuffix(arg, ")"))
	if toolKinds[strings.ToLower(tool)] != adapters.KindExecute {
		g, err := pathPattern(arg)
		if err != nil {
			return Rule{}, err
		}
		r.Path, r.pathGlob = arg, g
		return r, nil
	}
	if r.Command = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(arg, "*"), ":")); r.Command == "" {
		return Rule{}, fmt.Errorf("%w: %q names no command", ErrInvalidRule, pattern)
	}
	return r, nil
}

// Decide is the one evaluation order: hard deny, deny rules, "always reject", MustAsk,
// "always allow", grants, then the last matching allow or ask rule. decided is false when
// none speaks: the caller's default decides. A request naming several files is denied when
// one of them is, and allowed by a rule only when all of them are.
func (s *Service) Decide(req Request) (v Verdict, decided bool) {
	each := req.each()
	for _, r := range each {
		if reason, ok := HardDeny(r); ok {
			return Verdict{Decision: Deny, Reason: "hard deny: " + reason, Hard: true, By: ByHardDeny}, true
		}
	}
	for i := range s.rules {
		if r := &s.rules[i]; r.Decision == Deny && r.matchesAny(each) {
			return Verdict{Decision: Deny, Reason: "denied by " + r.label(), By: ByRule}, true
		}
	}
	d, remembered := s.remembered(req)
	why := MustAsk(req)
	if remembered && (d == Deny || why == "") { // refusing more never needs asking
		return Verdict{Decision: d, Reason: "remembered for this session", By: ByAlways}, true
	}
	if why != "" {
		return Verdict{Decision: Ask, Reason: why, Must: true, By: ByMustAsk}, true
	}
	if g, ok := s.granted(req); ok { // granted asks Coverable
		return Verdict{Decision: Allow, Reason: "allowed by grant " + g.ID + " until " + g.Expires.Local().Format("2006-01-02 15:04") +
			" ('hub grants revoke " + g.ID + "')", By: ByGrant}, true
	}
	var last *Rule
	for i := range s.rules {
		if r := &s.rules[i]; r.Decision != Deny && r.matchesAll(each) {
			last = r
		}
	}
	if last != nil {
		return Verdict{Decision: last.Decision, Reason: string(last.Decision) + " by " + last.label(), By: last.by()}, true
	}
	return Verdict{}, false
}

// remembered is the session's "always" answer covering req: an allow only where Coverable.
func (s *Service) remembered(req Request) (Decision, bool) {
	if Unclear(req) || anonymous(req) {
		return "", false
	}
	allowKey, rejectKey := AlwaysKey(req), RejectKey(req)
	s.mu.Lock()
	d, ok := s.always[allowKey]
	reject := s.always[rejectKey] == Deny
	s.mu.Unlock()
	switch {
	case ok && d == Deny, !ok && reject:
		return Deny, true
	case ok && Coverable(req):
		return d, true
	case reject:
		return Deny, true
	}
	return "", false
}

// Check is Decide with the native loop's defaults: reads allowed, writes and commands asked.
func (s *Service) Check(req Request) Verdict {
	if v, ok := s.Decide(req); ok {
		return v
	}
	if ReadOnly(req.Kind) {
		return Verdict{Decision: Allow, Reason: "default"}
	}
	return Verdict{Decision: Ask, Reason: "default"}
}

// Judge is Decide for p between p's refusal and the agent's own say (Hook, then Unasked:
// allowed, By empty); undecided, the call is for whoever answers.
func (s *Service) Judge(ctx context.Context, p *adapters.PermissionRequest, req Request) (v Verdict, decided bool) {
	if f := p.Refusal; f != nil {
		return Verdict{Decision: Deny, By: f.By, Reason: f.Reason}, true
	}
	if v, decided = s.Decide(req); decided && v.Decision == Deny {
		return v, true
	}
	if d := p.Hook; d != nil && ctx.Err() == nil {
		if h := d(ctx); h != nil && !h.Allowed {
			return Verdict{Decision: Deny, By: h.By, Reason: h.Reason}, true
		} else if h != nil && !v.Must {
			return Verdict{Decision: Allow, By: h.By, Reason: h.Reason}, true
		}
	}
	if !decided && p.Unasked {
		return Verdict{Decision: Allow}, true
	}
	return v, decided && v.Decision == Allow
}

// Narrow is what rules that only narrow (a persona's) say of req, each matching as a deny
// does; deny first.
func (s *Service) Narrow(req Request) (v Verdict, ok bool) {
	each := req.each()
	for _, d := range []struct {
		decision Decision
		verb     string
	}{{Deny, "denied"}, {Ask, "asked"}} {
		if i := slices.IndexFunc(s.rules, func(r Rule) bool { return r.Decision == d.decision && r.matchesAny(each) }); i >= 0 {
			return Verdict{Decision: d.decision, Reason: d.verb + " by " + s.rules[i].label(), Must: d.decision == Ask, By: ByRule}, true
		}
	}
	return Verdict{}, false
}

// Remember keeps an "always" answer for the session; an allow only where Coverable.
func (s *Service) Remember(req Request, kind adapters.PermissionOptionKind) {
	d, ok := map[adapters.PermissionOptionKind]Decision{adapters.AllowAlways: Allow, adapters.RejectAlways: Deny}[kind]
	if !ok || Unclear(req) || anonymous(req) || (d == Allow && !Coverable(req)) {
		return // asked every time
	}
	key := AlwaysKey(req)
	if d == Deny {
		key = RejectKey(req)
	}
	s.mu.Lock()
	s.always[key] = d
	s.mu.Unlock()
}

// MustAsk says why req must be asked whatever else allows it ("" when it need not): req.Must,
// Unreadable, a computed program given a store tool's words ($G --import), or a secret read.
func MustAsk(req Request) string {
	if req.Must != "" {
		return req.Must
	}
	if Unreadable(req) {
		return "hub cannot tell what this tool call does (no command, no file, kind " + string(cmp.Or(req.Kind, "none")) + "): it is asked every time"
	}
	targets := req.files()
	if req.Command != "" {
		rd := req.reading()
		if rd.must != "" {
			return rd.must
		}
		all, _ := rd.targets()
		targets = slices.Concat(targets, all)
	}
	if i := slices.IndexFunc(targets, IsSecretFile); i >= 0 {
		return "reading secrets (" + filepath.Base(targets[i]) + ") is asked every time"
	}
	return ""
}

// Unreadable reports a request with no command, no file and a kind that says nothing. MCP
// tools and delegate_agent are read by their names: an "always" covers that one tool.
func Unreadable(req Request) bool {
	if req.Command != "" || len(req.files()) > 0 || (req.Kind != "" && req.Kind != adapters.KindOther) {
		return false
	}
	return !strings.HasPrefix(req.Tool, "mcp__") && req.Tool != "delegate_agent"
}

// anonymous reports a request only its kind describes: an "always" would cover every call of it.
func anonymous(req Request) bool {
	return Unreadable(req) || (req.Command == "" && len(req.files()) == 0 && (req.Tool == "" || req.Tool == string(req.Kind)))
}

// Coverable reports whether an "always" answer (or a grant) may cover req: never one that must
// be asked, is unclear, targets a sensitivePath, changes what git runs, or changes a hard
// link (whose other name may be outside).
func Coverable(req Request) bool {
	if Unclear(req) || anonymous(req) || MustAsk(req) != "" || slices.ContainsFunc(req.dirs(), remote) {
		return false // a workspace on another machine: hub looks up nothing there (remote), so cannot see its links
	}
	var targets, changed []string
	hooks := hookDirsOf{}
	if !ReadOnly(req.Kind) {
		targets, changed = req.files(), req.files()
	}
	if req.Command != "" {
		rd := req.reading()
		all, ch := rd.targets()
		targets, changed = slices.Concat(targets, all), slices.Concat(changed, ch)
		if slices.ContainsFunc(rd.fills, func(d string) bool { return fillsGit(d, req.Cwd, hooks) }) {
			return false
		}
	}
	return !slices.ContainsFunc(targets, func(t string) bool { return sensitivePath(t, req.Cwd) }) &&
		!slices.ContainsFunc(changed, func(t string) bool {
			return gitControl(t) || gitControl(resolveLinks(t)) || hooks.written(t) || hooks.written(resolveLinks(t)) || hardLinked(t)
		})
}

func hardLinked(p string) bool {
	f, err := safefile.Open(lookupName(p))
	if err != nil {
		return false
	}
	defer f.Close()
	return safefile.Linked(f)
}

// ReadOnly: the native loop runs these kinds unasked when no rule decides them.
func ReadOnly(kind adapters.ToolKind) bool {
	return kind == adapters.KindRead || kind == adapters.KindSearch || kind == adapters.KindThink
}

// writesFile reports an edit, delete or move, by its kind or else its tool's name.
func writesFile(req Request) bool {
	kind := req.Kind
	if kind == "" || kind == adapters.KindOther {
		kind, _ = KindOfTool(req.Tool)
	}
	return kind == adapters.KindEdit || kind == adapters.KindDelete || kind == adapters.KindMove
}

// RejectKey is like AlwaysKey, but a file tool's refusal covers the whole tool.
func RejectKey(req Request) string {
	if req.Command != "" {
		return req.scope()
	}
	return req.Tool
}

// AlwaysKey is what an "always" answer to req covers: the command's scope in the repositories
// its git commands use, else the files a file tool touches (never the whole tool), else the tool.
func AlwaysKey(req Request) string {
	if req.Command != "" {
		return req.scope() + req.reading().repoKey() + req.dirsKey()
	}
	files := req.files()
	if len(files) == 0 {
		return req.Tool
	}
	clean := make([]string, len(files))
	for i, f := range files {
		clean[i] = filepath.Clean(f)
	}
	slices.Sort(clean)
	return req.Tool + "\x00path=" + strings.Join(slices.Compact(clean), ", ")
}

// unwrapShell returns the script of `bash -lc 'script'` (codex wraps every command so).
func unwrapShell(command string) string {
	argv, ok := plainCommand(command)
	if !ok || len(argv) != 3 || !strings.HasPrefix(argv[1], "-") || !strings.HasSuffix(argv[1], "c") ||
		!slices.Contains([]string{"bash", "sh", "zsh", "dash"}, progName(argv[0])) {
		return command
	}
	return argv[2]
}

func (r *Rule) matchesAny(reqs []Request) bool {
	return slices.ContainsFunc(reqs, func(q Request) bool { return r.matches(q, true) })
}

func (r *Rule) matchesAll(reqs []Request) bool {
	return !slices.ContainsFunc(reqs, func(q Request) bool { return !r.matches(q, false) })
}

func (r *Rule) matches(req Request, any bool) bool {
	return toolMatches(r.Tool, req) && (r.Command == "" || commandMatches(req, r.Command, any)) &&
		(r.pathGlob == "" || req.Path != "" && matchPath(r.pathGlob, req))
}

// toolKinds are the tool names rules may use for a kind, whatever the agent calls its own.
var toolKinds = map[string]adapters.ToolKind{
	"bash": adapters.KindExecute, "shell": adapters.KindExecute, "exec": adapters.KindExecute, "execute": adapters.KindExecute,
	"run_command": adapters.KindExecute, "exec_command": adapters.KindExecute,
	"edit": adapters.KindEdit, "write": adapters.KindEdit, "write_file": adapters.KindEdit, "multiedit": adapters.KindEdit,
	"str_replace": adapters.KindEdit, "apply_patch": adapters.KindEdit, "edit_file": adapters.KindEdit, "notebookedit": adapters.KindEdit,
	"read": adapters.KindRead, "read_file": adapters.KindRead, "notebookread": adapters.KindRead,
	"grep": adapters.KindSearch, "glob": adapters.KindSearch, "ls": adapters.KindSearch,
	"webfetch": adapters.KindFetch, "websearch": adapters.KindFetch, "fetch": adapters.KindFetch,
}

// KindOfTool is the kind a tool name stands for in rules; ok is false for one hub has no kind for.
func KindOfTool(name string) (kind adapters.ToolKind, ok bool) {
	kind, ok = toolKinds[strings.ToLower(name)]
	return kind, ok
}

func toolMatches(tool string, req Request) bool {
	t := strings.ToLower(tool)
	return t == "" || t == "*" || t == strings.ToLower(req.Tool) || t == string(req.Kind) ||
		(toolKinds[t] != "" && toolKinds[t] == req.Kind)
}

// commandMatches applies a rule's prefix to each simple command req runs. A deny matches when
// any does, at any wrapper layer ("git -C . push"); an allow or ask only when all do, through
// no wrapper that changes who runs or what (sudo, xargs, git -c): "go test" never allows
// "go test && rm -rf build".
func commandMatches(req Request, prefix string, any bool) bool {
	want := strings.Fields(prefix)
	if len(want) == 0 {
		return false
	}
	n, calls := 0, req.reading().calls
	if any { // a deny matches as the deny list does: any reading of a raw line
		for _, rd := range req.windowsReadings() {
			calls = append(calls, rd.calls...)
		}
	}
	for _, c := range calls {
		if len(c.argv) == 0 {
			continue
		}
		n++
		layers := c.layers
		if !any && c.opaque { // an allow looks through no wrapper that changes who runs or what
			layers = layers[:min(1, len(layers))]
		}
		hit := slices.ContainsFunc(layers, func(l []string) bool { return hasPrefix(l, want) }) && (any || !c.argv[0].dynamic) // ${G:-gpg} is what $G names
		if hit == any {
			return any // a deny's first hit, or an allow's first miss
		}
	}
	return n > 0 && !any
}

// hasPrefix compares argv with a rule's words, the program by its name.
func hasPrefix(argv, want []string) bool {
	return len(argv) >= len(want) && progName(argv[0]) == progName(want[0]) && slices.Equal(argv[1:len(want)], want[1:])
}

func (r *Rule) by() string {
	switch {
	case strings.HasPrefix(r.Name, "skill "):
		return BySkill
	case strings.HasPrefix(r.Name, "--allow-tool"):
		return ByAllowTool
	}
	return ByRule
}

func (r *Rule) label() string {
	if r.Name != "" {
		return r.Name
	}
	s := "rule tool=" + cmp.Or(r.Tool, "*")
	if r.Path != "" {
		s += " path=" + r.Path
	}
	if r.Command != "" {
		s += " command=" + r.Command
	}
	return s + " -> " + string(r.Decision)
}

// pathPattern is a rule's path glob as doublestar reads it, checked once.
func pathPattern(glob string) (string, error) {
	g := filepath.ToSlash(glob)
	if !doublestar.ValidatePattern(g) {
		return "", fmt.Errorf("%w: path %q is not a valid glob", ErrInvalidRule, glob)
	}
	return g, nil
}

// matchPath matches the path, the path relative to Cwd and, for a glob without a slash, the base.
func matchPath(glob string, req Request) bool {
	match := func(p string) bool {
		ok, _ := doublestar.Match(glob, filepath.ToSlash(p))
		return ok
	}
	rel, err := filepath.Rel(req.Cwd, req.Path)
	return match(req.Path) || req.Cwd != "" && err == nil && match(rel) ||
		!strings.Contains(glob, "/") && match(filepath.Base(req.Path))
}
