package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hubdev/hub/internal/proc"
)

// maxStdout bounds the answer read from a hook; the rest is discarded.
const maxStdout = 1 << 20

// exec runs one hook in dir with data on stdin, killing its process group when
// it outlives its timeout: its answer, or how it failed.
func (r *Runner) exec(ctx context.Context, h Hook, data []byte, dir string) (Outcome, error) {
	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	spec := ShellSpec(h.Command)
	spec.Dir, spec.Grace, spec.StderrLimit = dir, r.stopGrace, 8<<10
	p, err := proc.Start(tctx, spec)
	if err != nil {
		return Outcome{}, fmt.Errorf("did not start: %w", err)
	}
	go func() {
		_, _ = p.Stdin.Write(data) // a hook need not read its input
		_ = p.Stdin.Close()
	}()
	out, _ := io.ReadAll(io.LimitReader(p.Stdout, maxStdout))
	_, _ = io.Copy(io.Discard, p.Stdout)
	<-p.Done()
	switch {
	case errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return Outcome{}, fmt.Errorf("timed out after %s", h.Timeout)
	case ctx.Err() != nil:
		return Outcome{}, errors.New("was cancelled")
	}
	return decode(h, p.ExitCode(), string(out), p.StderrTail(20))
}
