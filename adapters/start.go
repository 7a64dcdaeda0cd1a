package adapters

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/jsonrpc"
	"github.com/hubdev/hub/internal/proc"
)

var (
	ErrBadCwd = errors.New("bad working directory") // a usage error, not the agent's
	ErrStart  = errors.New("agent did not start")   // its program exists
)

// Checker is implemented by adapters that can tell, without starting anything, why they
// cannot run here: Ready's error is one line, wrapping ErrNotInstalled or
// ErrNotAuthenticated.
type Checker interface {
	Ready() error
}

// Ready reports whether a can start here; an adapter that cannot tell is assumed ready.
func Ready(a Adapter) error {
	if c, ok := a.(Checker); ok {
		return c.Ready()
	}
	return nil
}

// FindCLI reports whether an agent's program can be found, on PATH or where package
// managers install to.
func FindCLI(program string) error {
	if _, err := proc.LookPath(program); err != nil {
		return fmt.Errorf("%w: %s not found on PATH", ErrNotInstalled, program)
	}
	return nil
}

// StartError maps a failure to spawn an agent's program to the sentinel a front end acts
// on, worded as the cause alone (NotStarted names the agent).
func StartError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, proc.ErrNotFound):
		return Mark(ErrNotInstalled, err)
	case errors.Is(err, proc.ErrBadDir):
		return fmt.Errorf("%w: %w", ErrBadCwd, err)
	}
	return Mark(ErrStart, err)
}

// Mark is err, also matching sentinel for errors.Is, worded as err alone: the front end
// names the agent and the failure once (NotStarted).
func Mark(sentinel, err error) error { return worded{err, sentinel, err} }

// NotStarted is the one wording of agent's start failure err: the agent's name once, then
// why. It still wraps err.
func NotStarted(agent string, err error) error {
	return worded{errors.New(agent + " could not start: " + Why(agent, err)), err}
}

// worded is w[1:] (for errors.Is and As) told as w[0].
type worded []error

func (w worded) Error() string   { return w[0].Error() }
func (w worded) Unwrap() []error { return w[1:] }

// Why is err's text in a sentence that names agent already: "it exited ...".
func Why(agent string, err error) string {
	if ex := (*Exited)(nil); errors.As(err, &ex) && ex.Agent == agent && err.Error() == ex.Error() {
		return "it" + strings.TrimPrefix(ex.Error(), agent)
	}
	return err.Error()
}

// Exited is an agent process that ended (Ended: how, in words) before it answered request
// Before; How is howExited.
type Exited struct{ Agent, Ended, Before, How string }

func (e *Exited) Error() string {
	return e.Agent + e.Ended + " before answering " + e.Before + " " + e.How
}

// Gone is err, from request method to name's process p, as an *Exited once p has exited:
// which of a broken pipe, the connection's end and the exit hub meets first must not
// change it. It wraps no ErrClosed: a start it ends is a start failure.
func Gone(ctx context.Context, p *proc.Process, name, method string, err error) error {
	if re := (*jsonrpc.Error)(nil); err == nil || ctx.Err() != nil || errors.As(err, &re) {
		return err
	}
	if _, ok := CrashInfo(p, name); ok {
		return &Exited{name, cmp.Or(p.Stopped(), " exited"), method, howExited(p)}
	}
	return err
}

// WithStderr is err with p's stderr tail, unless err tells it already.
func WithStderr(p *proc.Process, err error) error {
	if tail := p.StderrTail(3); !strings.Contains(err.Error(), tail) {
		return fmt.Errorf("%w (stderr: %s)", err, tail)
	}
	return err
}

// ErrorOf describes err, a failure to start an agent or send it a prompt, with the code
// its sentinel stands for.
func ErrorOf(err error) *ErrorInfo {
	if te := (*TurnError)(nil); errors.As(err, &te) {
		e := te.Info
		return &e
	}
	e := &ErrorInfo{Message: err.Error(), Code: CodeAgent, Fatal: true}
	switch {
	case errors.Is(err, ErrNotInstalled):
		e.Code = CodeNotInstalled
	case errors.Is(err, ErrNotAuthenticated):
		e.Code = CodeAuth
	case errors.Is(err, ErrBadCwd), errors.Is(err, ErrUnsupported), errors.Is(err, ErrUnknownAgent):
		e.Code = CodeUsage
	case errors.Is(err, ErrClosed):
		e.Code = CodeCrash
	case errors.Is(err, ErrStart):
		e.Code = CodeStart
	}
	return e
}

// AppendFlags appends each flag and value of pairs (flag, value, ...) whose value is set.
func AppendFlags(args []string, pairs ...string) []string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			args = append(args, pairs[i], pairs[i+1])
		}
	}
	return args
}

// PromptArg is prompt as a command line word a CLI never reads as an option: one starting
// with - gets a space ahead. gemini takes the word after -p as an option when it starts
// with -, and qodercli reads options in its query even after --; since whoever drives
// the agent (a delegating agent too) writes the prompt, "--yolo" or "--mcp-config={…}"
// would otherwise configure the CLI.
func PromptArg(prompt string) string {
	if strings.HasPrefix(prompt, "-") {
		return " " + prompt
	}
	return prompt
}

// Environ is base (os.Environ() when nil) plus each map's entries, a later map winning.
func Environ(base []string, maps ...map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := slices.Clone(base)
	for _, m := range maps {
		for k, v := range m {
			env = append(env, k+"="+v)
		}
	}
	return env
}
