// Package tools implements the native loop's tools (read_file, write_file,
// edit_file, bash, grep, glob). Every path is confined to the workspace root,
// symlinks included; file and terminal work goes through the editor when it
// offers fs or terminal methods.
package tools

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"text/template"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/internal/fspath"
	"github.com/hubdev/hub/internal/sandbox"
)

// hostOS is the goos the path rules follow; tests change it.
var hostOS = runtime.GOOS

var (
	ErrOutsideWorkspace = fspath.ErrOutside
	ErrUnknownTool      = errors.New("unknown tool")
	ErrBadArgs          = errors.New("invalid tool arguments")
)

//go:embed prompts
var promptFS embed.FS

// Env is what tools need from the session.
type Env struct {
	Root      string                // workspace root, absolute with symlinks resolved
	Editor    adapters.EditorClient // nil outside ACP
	OutputCap int                   // tool output in bytes
	Sandbox   *sandbox.Sandbox      // confines bash commands

	shell shell // what the bash tool runs
}

// NewEnv resolves root, which must exist.
func NewEnv(root string, editor adapters.EditorClient) (*Env, error) {
	dir, err := filepath.Abs(root)
	if err == nil {
		dir, err = fspath.RealPath(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	return &Env{Root: dir, Editor: editor, OutputCap: 64 << 10, shell: hostShell(),
		Sandbox: sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite}, nil)}, nil
}

type Result struct {
	Output    string // what the model reads
	Content   []adapters.ToolContent
	Locations []adapters.Location
	Failed    bool
}

// Prepared is a validated call, ready for a permission check and to run.
type Prepared struct {
	Title     string
	Locations []adapters.Location
	// Run's update reports interim changes (e.g. a terminal).
	Run func(ctx context.Context, update func(adapters.ToolCall)) Result
}

// Definition is a tool as the model sees it.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type spec struct {
	kind    adapters.ToolKind
	prepare func(e *Env, args json.RawMessage) (*Prepared, error)
}

var specs = map[string]spec{
	"read_file":  {adapters.KindRead, decoded(prepareRead)},
	"write_file": {adapters.KindEdit, decoded(prepareWrite)},
	"edit_file":  {adapters.KindEdit, decoded(prepareEdit)},
	"bash":       {adapters.KindExecute, decoded(prepareBash)},
	"grep":       {adapters.KindSearch, decoded(prepareGrep)},
	"glob":       {adapters.KindSearch, decoded(prepareGlob)},
}

var order = []string{"read_file", "write_file", "edit_file", "bash", "grep", "glob"}

// Definitions returns every tool's name, description and JSON schema; the
// bash tool's description names the shell it runs on this host.
func Definitions() []Definition { return definitions(hostShell()) }

func definitions(sh shell) []Definition {
	var schemas map[string]json.RawMessage
	if raw, err := promptFS.ReadFile("prompts/schemas.json"); err != nil || json.Unmarshal(raw, &schemas) != nil {
		panic("tools: prompts/schemas.json is not a JSON object")
	}
	descriptions := template.Must(template.ParseFS(promptFS, "prompts/*.md"))
	out := make([]Definition, 0, len(order))
	for _, n := range order {
		var desc strings.Builder
		if err := descriptions.ExecuteTemplate(&desc, n+".md", sh); err != nil {
			panic(err)
		}
		out = append(out, Definition{Name: n, Description: strings.TrimSpace(desc.String()), Parameters: schemas[n]})
	}
	return out
}

func KindOf(name string) adapters.ToolKind {
	return cmp.Or(specs[name].kind, adapters.KindOther)
}

func (e *Env) Prepare(name string, args json.RawMessage) (*Prepared, error) {
	s, ok := specs[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (available: %s)", ErrUnknownTool, name, strings.Join(order, ", "))
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	return s.prepare(e, args)
}

func decoded[A any](prepare func(*Env, A) (*Prepared, error)) func(*Env, json.RawMessage) (*Prepared, error) {
	return func(e *Env, raw json.RawMessage) (*Prepared, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadArgs, err)
		}
		return prepare(e, a)
	}
}

func prepared(title, p string, line int, run func(ctx context.Context) Result) *Prepared {
	return &Prepared{Title: title, Locations: []adapters.Location{{Path: p, Line: line}},
		Run: func(ctx context.Context, _ func(adapters.ToolCall)) Result { return run(ctx) }}
}

func (e *Env) onFile(verb, path string, line int, run func(ctx context.Context, p string) Result) (*Prepared, error) {
	p, err := e.Resolve(path)
	if err != nil {
		return nil, err
	}
	return prepared(verb+" "+e.rel(p), p, line, func(ctx context.Context) Result { return run(ctx, p) }), nil
}

// Resolve maps p to an absolute path inside Root (see fspath.Resolve).
func (e *Env) Resolve(p string) (string, error) {
	got, err := fspath.Resolve(hostOS, e.Root, p)
	if errors.Is(err, fspath.ErrBadPath) {
		return "", fmt.Errorf("%w: %w", ErrBadArgs, err)
	}
	return got, err
}

func (e *Env) rel(p string) string { return fspath.RelTo(hostOS, e.Root, p) }

func failed(format string, a ...any) Result {
	return Result{Output: fmt.Sprintf(format, a...), Failed: true}
}
