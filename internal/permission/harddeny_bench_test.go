package permission

import "testing"

// typicalLines are lines coding agents send every few seconds: the cost
// of reading them is paid on each tool call.
var typicalLines = []string{
	"go test ./...",
	"git status",
	"git diff HEAD~1 -- main.go",
	"npm run build",
	"ls -la src",
	"grep -rn 'func main' .",
	"cat README.md | head -50",
	"rm -rf ./build",
	"cd web && npm ci",
	"python3 -m pytest -q tests/test_api.py",
	"find . -name '*.go' | xargs wc -l",
	"sed -n 1,20p main.go",
	"make test V=1",
	"cargo build --release",
	"docker compose ps",
	`git commit -m "fix: handle empty input"`,
}

// BenchmarkHardDeny_TypicalLines is the hard deny list's cost per line an
// agent sends (go test -bench HardDeny ./internal/permission/).
func BenchmarkHardDeny_TypicalLines(b *testing.B) {
	cwd := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range typicalLines {
			if why, denied := HardDeny(Request{Tool: "bash", Kind: "execute", Command: l, Cwd: cwd}); denied {
				b.Fatalf("%q denied: %s", l, why)
			}
		}
	}
}
