package supervise

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// TestImports_OnlyWhatInitsEarly keeps the supervisor's entry before hub's
// heavy package inits: an import such as fmt, io or os/exec makes this
// package wait for 60-odd more inits at every agent start.
func TestImports_OnlyWhatInitsEarly(t *testing.T) {
	allowed := map[string]bool{"os": true, "os/signal": true, "strconv": true, "syscall": true, "time": true, "errors": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); !allowed[p] && name != "imports_test.go" {
				t.Errorf("%s imports %s: the supervisor may import only %v", name, p, allowed)
			}
		}
	}
}
