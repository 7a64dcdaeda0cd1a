package proc

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/hubdev/hub/internal/trace"
)

type tracedPipes struct {
	write, read atomic.Pointer[trace.Span]
}

type tracedStdin struct {
	io.WriteCloser
	t *tracedPipes
}

// Write marks the prompt written as it goes into the pipe, and arms the
// first read first: an agent may answer before Write returns, and its
// first byte must not go unmarked while its first event is marked.
func (w tracedStdin) Write(b []byte) (int, error) {
	if s := w.t.write.Swap(nil); s != nil {
		s.Mark(trace.Written)
		w.t.read.Store(s)
	}
	return w.WriteCloser.Write(b)
}

type tracedStdout struct {
	io.ReadCloser
	t *tracedPipes
}

func (r tracedStdout) Read(b []byte) (int, error) {
	n, err := r.ReadCloser.Read(b)
	if n > 0 {
		r.t.read.Swap(nil).Mark(trace.FirstByte)
	}
	return n, err
}

// Trace marks ctx's turn hops on the agent's pipes: the next write to its
// stdin is the prompt written, the first read after it the agent's first
// byte. Call it before writing the prompt.
func (p *Process) Trace(ctx context.Context) {
	if p.traced != nil {
		p.traced.write.Store(trace.From(ctx))
	}
}

func (p *Process) tracePipes() {
	if !trace.On() {
		return
	}
	p.traced = &tracedPipes{}
	p.Stdin = tracedStdin{p.Stdin, p.traced}
	p.Stdout = tracedStdout{p.Stdout, p.traced}
}
