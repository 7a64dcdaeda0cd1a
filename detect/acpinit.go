package detect

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
)

// initialize fills a's capabilities from the agent's own initialize
// answer, cached; an agent that fails it cannot run (the fix says why),
// one that is only slow gets a warning.
func (p *prober) initialize(ctx context.Context, a *Agent, argv []string, env map[string]string) {
	if !p.o.NoCache {
		if r, ok := acpclient.CachedInitialize(p.o.CacheDir, a.Path, argv[1:]); ok {
			a.Capabilities = new(acpclient.CapsFromInit(r))
			return
		}
	}
	r, err := acpclient.Probe(ctx, append([]string{a.Path}, argv[1:]...), adapters.Environ(p.o.Env, env))
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		a.Warnings = append(a.Warnings, fmt.Sprintf("`%s` did not answer initialize in time; capabilities unknown until it does", strings.Join(argv, " ")))
		return
	case err != nil:
		a.Fix = fmt.Sprintf("`%s` does not speak ACP here: %s", strings.Join(argv, " "), adapters.Why(a.Path, err))
		return
	}
	a.Capabilities = new(acpclient.CapsFromInit(r))
	if !p.o.NoCache {
		acpclient.SaveInitialize(p.o.CacheDir, a.Path, argv[1:], r)
	}
}
