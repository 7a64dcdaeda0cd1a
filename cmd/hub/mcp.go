package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubdev/hub/conversation/delegation"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/delegate"
)

func init() { commands["mcp"] = described("mcp", runMCP) }

func runMCP(ctx context.Context, e *env, args []string) int {
	o := delegation.Options{Registry: e.registry, Rules: e.cfg.Permissions, Log: e.log, Hooks: e.hooks, Fallback: e.cfg.Fallbacks(),
		ProviderTimeout: e.cfg.Fallback.ProviderTimeout.Duration, AuditDir: e.cfg.AuditDir(), Records: delegation.RecordsIn(config.StateDir())}
	fs := e.flagSet("mcp")
	fs.StringVar((*string)(&o.Approve), "approve", "read-only", "answer the delegates' permission requests: all|read-only|none")
	fs.StringVar(&o.Cwd, "cwd", e.cwd, "default working directory of the delegates")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "default limit of a delegate turn")
	if code, ok := e.parseNoArgs(fs, args); !ok {
		return code
	}
	if !o.Approve.Valid() {
		return e.fail(exitUsage, "hub mcp: --approve must be all, read-only or none\n")
	}
	host, done := mcpHost(e, o)
	defer done()
	s := delegate.NewServer(host, currentBuild().Version, e.log)
	if err := s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}); err != nil && ctx.Err() == nil {
		return e.fail(exitError, "hub mcp: %v\n", err)
	}
	return exitOK
}

// mcpHost is the parent hub acp when this process was started for one of
// its agents, else a delegator of its own.
func mcpHost(e *env, o delegation.Options) (delegation.Host, func()) {
	remote, child, err := delegation.Dial(os.Getenv, e.log)
	if !child {
		if chain := os.Getenv(delegation.EnvChain); chain != "" { // a delegate's own hub mcp
			for _, n := range strings.Split(chain, ",") {
				a, err := o.Registry.Get(n)
				if err != nil { // its persona's mode and delegates list would not bind here
					return refusing{fmt.Errorf("%w: %s, which this delegation works for (%s=%s), is not in this hub's configuration, so its limits cannot be kept; start hub mcp where that agent is configured",
						delegation.ErrRefused, n, delegation.EnvChain, chain)}, func() {}
				}
				o.Chain = append(o.Chain, a)
			}
		}
		d := delegation.New(o)
		return d, d.Close
	}
	if err != nil { // every call says so
		e.log.Warn().Err(err).Msg("delegation parent unreachable")
	}
	return remote, remote.Close
}

// refusing refuses every delegation with why.
type refusing struct{ err error }

func (refusing) Agents() []delegation.AgentInfo { return nil }

func (r refusing) Delegate(context.Context, delegation.Request, delegation.Progress) (delegation.Result, error) {
	return delegation.Result{}, r.err
}

// nopWriteCloser hands stdout to the MCP transport without letting it
// close hub's own stream (io.NopCloser does the same for stdin).
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
