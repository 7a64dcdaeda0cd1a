// Package hub_test holds the checks on the module as a whole: that its
// imports point down the layers.
package hub_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/hubdev/hub"

// layer is one floor of hub. peers says whether its packages may import
// each other: front ends may not, a rule two of them need goes into
// conversation.
type layer struct {
	name  string
	peers bool
	pkgs  []string
}

// layers, lowest first. A package may import only lower layers (and its
// own, where peers). A package not listed is in its nearest listed parent
// directory's layer (conversation/x is conversation).
var layers = []layer{
	{"ground floors", true, []string{"internal/proc", "internal/config", "internal/safefile", "internal/sandbox",
		"internal/logging", "internal/trace", "internal/jsonrpc", "internal/fspath", "internal/fileuri", "internal/mask",
		"internal/handover", "internal/release", "internal/testlog", "internal/mockllm", "acp/schema"}},
	{"the seam", false, []string{"adapters"}},
	{"agent-level services", true, []string{"internal/permission", "internal/hooks", "internal/transcript", "skills", "personas", "adapters/agentspec"}},
	{"agent implementations", true, []string{"adapters/acpclient", "adapters/claude", "adapters/codex", "adapters/gemini",
		"adapters/openai", "adapters/pi", "adapters/qoder", "adapters/replay", "adapters/catalog", "adapters/all", "internal/fixture"}},
	{"conversation", true, []string{"conversation"}},
	{"front ends", false, []string{"acp", "internal/runner", "internal/delegate", "detect"}},
	// Programs and the tests of the whole binary: nothing imports them.
	{"commands", true, []string{"cmd/hub", "scripts", "bench", "e2e", "scenarios"}},
}

// testSupport may be imported by any package's tests, and by no other code.
var testSupport = []string{"internal/proc/proctest", "internal/permission/permtest", "internal/testlog", "internal/mockllm", "internal/fixture"}

// debts are the front end → front end imports that exist and must go: a
// rule two front ends share belongs in conversation. Remove an entry when
// its import goes (the test fails on a stale one); the list may only
// shrink. The gate and the turn pipeline in conversation ended the
// approval and exit-code imports, the delegation and best of N engines
// in conversation the embedding; what is left is a benchmark.
var debts = map[string]string{
	// Only the benchmark that measures a delegate against hub run direct.
	"internal/delegate -> internal/runner": "bench_test.go: runner.Run",
}

func TestImports_PointDownTheLayers(t *testing.T) {
	pkgs := readImports(t)
	used := map[string]bool{}
	var bad []string
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		for _, imp := range pkgs[pkg] {
			if why := check(pkg, imp, used); why != "" {
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s) in %s: %s",
					pkg, layerName(pkg), imp.path, layerName(imp.path), imp.file, why))
			}
		}
	}
	for edge := range debts {
		if !used[edge] {
			bad = append(bad, fmt.Sprintf("%s is in debts but no longer imported: delete its entry", edge))
		}
	}
	if len(bad) > 0 {
		t.Fatalf("imports must point down the layers (layers_test.go); the allowlist of known debts has %d edges and may only shrink:\n%s",
			len(debts), strings.Join(bad, "\n"))
	}
}

func TestCheck_Rules(t *testing.T) {
	tests := []struct {
		name, pkg, imp string
		test, ok       bool
	}{
		{"down", "adapters/claude", "adapters", false, true},
		{"upward", "adapters/claude", "detect", false, false},
		{"upward from a test", "adapters/claude", "conversation", true, false},
		{"agents share code", "adapters/qoder", "adapters/claude", false, true},
		{"front ends do not", "detect", "internal/runner", false, false},
		{"a known debt", "internal/delegate", "internal/runner", true, true},
		{"test support from a test", "adapters", "internal/fixture", true, true},
		{"test support from code", "adapters/claude", "internal/mockllm", false, false},
		{"a subpackage is in its parent's layer", "conversation/gate", "acp", false, false},
		{"an unplaced package", "newthing", "adapters", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why := check(tt.pkg, importSite{path: tt.imp, test: tt.test}, map[string]bool{})
			if (why == "") != tt.ok {
				t.Fatalf("%s imports %s (test %v): %q, want ok %v", tt.pkg, tt.imp, tt.test, why, tt.ok)
			}
		})
	}
}

// check says what is wrong with pkg importing imp, or "".
func check(pkg string, imp importSite, used map[string]bool) string {
	if imp.path == pkg {
		return "" // an external test package
	}
	if support(imp.path) {
		if imp.test || support(pkg) {
			return ""
		}
		return "test support is for tests"
	}
	from, to := layerOf(pkg), layerOf(imp.path)
	switch {
	case from < 0:
		return "the importer is in no layer: add it to layers"
	case to < 0:
		return "the imported package is in no layer: add it to layers"
	case to < from:
		return ""
	case to > from:
		return "upward"
	}
	edge := pkg + " -> " + imp.path
	if _, ok := debts[edge]; ok {
		used[edge] = true
		return ""
	}
	if layers[from].peers {
		return ""
	}
	return "the " + layers[from].name + " may not import each other; put what they share in a lower layer"
}

func support(pkg string) bool { return slices.Contains(testSupport, pkg) }

// layerOf is the index of pkg's layer: its own entry or its nearest
// listed parent's; -1 for none.
func layerOf(pkg string) int {
	for p := pkg; p != "."; p = path.Dir(p) {
		for i, l := range layers {
			if slices.Contains(l.pkgs, p) {
				return i
			}
		}
	}
	return -1
}

func layerName(pkg string) string {
	if i := layerOf(pkg); i >= 0 {
		return layers[i].name
	}
	return "no layer"
}

// importSite is one import of a module package by a file.
type importSite struct {
	path, file string
	test       bool
}

// readImports parses every Go file of the module, whatever its build
// tags (Windows-only and e2e files count), and returns each package
// directory's imports of module packages.
func readImports(t *testing.T) map[string][]importSite {
	t.Helper()
	pkgs := map[string][]importSite{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				pkgs[pkg] = append(pkgs[pkg], importSite{rel, filepath.ToSlash(p), strings.HasSuffix(p, "_test.go")})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found imports in only %d packages: not run from the module root?", len(pkgs))
	}
	return pkgs
}
