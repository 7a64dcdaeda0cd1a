package proc

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/hubdev/hub/internal/proc/proctest"
)

// BenchmarkStart_Supervised measures what supervision adds to an agent's
// start: start to first output byte to exit, supervised against a plain
// exec of the same program.
func BenchmarkStart_Supervised(b *testing.B) {
	argv := proctest.Command("out:x\n")
	b.Run("supervised", func(b *testing.B) {
		for b.Loop() {
			p, err := Start(context.Background(), Spec{Path: argv[0], Args: argv[1:]})
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.ReadAll(p.Stdout)
			_ = p.Wait()
		}
	})
	b.Run("plain exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
