package conversation

import (
	"context"
	"os"
	"testing"
)

// BenchmarkTakeSnapshot is the workspace read every turn waits for before
// its prompt is written, here in hub's own repository.
func BenchmarkTakeSnapshot(b *testing.B) {
	cwd, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if TakeSnapshot(context.Background(), cwd).root == "" {
			b.Skip("not in a git repository")
		}
	}
}
