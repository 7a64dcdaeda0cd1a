package acp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// notApplicable lists the conformance checks of ../shared/acp/acp.md §21
// that do not apply to hub, with the reason.
var notApplicable = map[string]string{}

// Every conformance check C01–C44 that applies to hub is asserted by a test
// that names it in its doc comment or its name.
func TestConformance_EveryCheckHasATest(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	cnum := regexp.MustCompile(`\bC(\d\d)\b|_C(\d\d)_`)
	covered := map[string][]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == t.Name() {
				continue
			}
			text := fn.Name.Name
			if fn.Doc != nil {
				text += " " + fn.Doc.Text()
			}
			for _, m := range cnum.FindAllStringSubmatch(text, -1) {
				c := "C" + m[1] + m[2]
				if !slices.Contains(covered[c], fn.Name.Name) {
					covered[c] = append(covered[c], fn.Name.Name)
				}
			}
		}
	}
	for i := 1; i <= 44; i++ {
		c := fmt.Sprintf("C%02d", i)
		_, na := notApplicable[c]
		switch {
		case na && len(covered[c]) > 0:
			t.Errorf("%s is marked not applicable but %v assert it", c, covered[c])
		case !na && len(covered[c]) == 0:
			t.Errorf("conformance check %s has no test naming it", c)
		}
	}
}
