//go:build unix

package proc

import (
	"context"
	"io"
	"os/exec"
	"testing"
)

// BenchmarkStart_Supervised measures what supervision adds to an agent's
// start: start to first output byte to exit, supervised against a plain
// exec of the same program.
func BenchmarkStart_Supervised(b *testing.B) {
	b.Run("supervised", func(b *testing.B) {
		for b.Loop() {
			p, err := Start(context.Background(), Spec{Path: "echo", Args: []string{"x"}})
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.ReadAll(p.Stdout)
			_ = p.Wait()
		}
	})
	b.Run("plain exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("echo", "x").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
