package permission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hubdev/hub/adapters"
)

// An "always" for a command that runs a package's scripts or go:generate
// lines holds while they stay as the user saw them: an edit of them (a
// checkout, the agent's own) asks again, a dependency added does not.
func TestAlwaysKey_ScriptsAsShown(t *testing.T) {
	for _, tt := range []struct {
		name, file, cmd, before, after string
		covered                        bool
	}{
		{"a script edited", "package.json", "npm test",
			`{"scripts": {"test": "jest"}}`, `{"scripts": {"test": "jest; node x.js"}}`, false},
		{"a script added", "package.json", "npm test",
			`{"scripts": {"test": "jest"}}`, `{"scripts": {"test": "jest", "pretest": "node x.js"}}`, false},
		{"a dependency added", "package.json", "npm test",
			`{"scripts": {"test": "jest"}}`, `{"scripts": {"test": "jest"}, "dependencies": {"left-pad": "1.0.0"}}`, true},
		{"a task edited", "deno.json", "deno task dev",
			`{"tasks": {"dev": "deno run main.ts"}}`, `{"tasks": {"dev": "deno run -A main.ts"}}`, false},
		{"a go:generate line edited", "gen.go", "go generate ./...",
			"package p\n//go:generate stringer -type=K\n", "package p\n//go:generate go run ./x\n", false},
		{"Go code edited", "gen.go", "go generate ./...",
			"package p\n//go:generate stringer -type=K\n", "package p\n//go:generate stringer -type=K\nfunc F() {}\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.Abs(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			write := func(s string) {
				if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			req := Request{Tool: "bash", Kind: adapters.KindExecute, Command: tt.cmd, Cwd: dir}
			write(tt.before)
			s := mustNew(t)
			s.Remember(req, adapters.AllowAlways)
			if v := s.Check(req); v.Decision != Allow {
				t.Fatalf("the always does not cover itself: %+v", v)
			}
			write(tt.after)
			if v := s.Check(req); (v.Decision == Allow) != tt.covered {
				t.Errorf("after the edit: %+v, want covered %v", v, tt.covered)
			}
		})
	}
}
