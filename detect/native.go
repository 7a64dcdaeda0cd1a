package detect

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/agentspec"
	"github.com/hubdev/hub/adapters/openai"
	"github.com/hubdev/hub/internal/config"
	"github.com/hubdev/hub/internal/sandbox"
)

// probeNative checks one profile of openai.Profiles, so doctor reports
// exactly what hub can register.
func (p *prober) probeNative(ctx context.Context, j openai.Named) Agent {
	prof := j.Profile
	pc, configured := p.o.Config.Providers[j.Name]
	ep := &Endpoint{BaseURL: prof.BaseURL, Model: prof.Model, KeyEnv: prof.APIKeyEnv, Local: prof.Local, Configured: configured, Preset: openai.PresetOf(j.Name, pc)}
	a := Agent{Name: j.Name, Kind: "native", Capabilities: p.caps(j.Name), Endpoint: ep}
	if j.Err != nil {
		a.Auth = agentspec.Auth{State: agentspec.AuthUnknown}
		a.Fix = nativeConfigFix(j, ep)
		return a
	}
	key := ""
	if ep.KeyEnv != "" {
		key = p.getenv(ep.KeyEnv)
		ep.KeySet = key != ""
	}
	switch {
	case ep.KeySet:
		a.Auth = agentspec.Auth{State: agentspec.AuthAPIKey, Source: ep.KeyEnv}
	case ep.KeyEnv == "" || prof.Local:
		a.Auth = agentspec.Auth{State: agentspec.AuthNotRequired}
	default:
		a.Auth = agentspec.Auth{State: agentspec.AuthNone, Source: ep.KeyEnv}
		a.Fix = fmt.Sprintf("no API key: set %s", ep.KeyEnv)
	}
	// Without a required key there is nothing to learn from the network.
	if p.o.Probe && a.Auth.State != agentspec.AuthNone {
		prof.APIKey, prof.APIKeyEnv = key, "" // the key of doctor's environment
		p.probeEndpoint(ctx, &a, prof)
	}
	a.Installed = true
	a.Ready = a.Fix == ""
	return a
}

func nativeConfigFix(j openai.Named, ep *Endpoint) string {
	if ep.Preset != "" && !ep.Configured {
		// The azure preset: the endpoint is per resource, so the preset has
		// no base_url; resolve with a placeholder to learn the rest.
		if pr, err := openai.ResolveProfile(j.Name, config.ProviderConfig{BaseURL: "https://resource.invalid"}); err == nil {
			ep.KeyEnv, ep.Model = pr.APIKeyEnv, pr.Model
		}
		return fmt.Sprintf("add [providers.%s] base_url = \"https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT\" to hub's config and set %s", j.Name, ep.KeyEnv)
	}
	return adapters.OneLine(j.Err.Error())
}

// probeEndpoint lists prof's models, asking as the native loop asks.
func (p *prober) probeEndpoint(ctx context.Context, a *Agent, prof openai.Profile) {
	ep := a.Endpoint
	ep.Probed = true
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, prof.Endpoint("/models"), nil)
	if err != nil {
		ep.Status = err.Error()
		a.Fix = "bad base_url: " + err.Error()
		return
	}
	prof.Authorize(req)
	resp, err := p.o.HTTP.Do(req)
	if err != nil {
		ep.Status = adapters.OneLine(err.Error())
		a.Fix = cmp.Or(a.Fix, fmt.Sprintf("endpoint %s does not answer: is the server running?", ep.BaseURL))
		return
	}
	resp.Body.Close()
	ep.Status = resp.Status
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		ep.Reachable = true
		a.Fix = cmp.Or(a.Fix, fmt.Sprintf("endpoint rejected the key (%s): check %s", resp.Status, ep.KeyEnv))
	case resp.StatusCode < 500:
		ep.Reachable = true
		if resp.StatusCode >= 300 {
			a.Warnings = append(a.Warnings, "GET /models answered "+resp.Status+" (some servers do not list models)")
		}
	default:
		a.Fix = cmp.Or(a.Fix, fmt.Sprintf("endpoint %s answered %s", ep.BaseURL, resp.Status))
	}
}

// nativeSandbox is Report.NativeSandbox: the [sandbox] policy, the host's
// tool, and whether the tool works here.
func nativeSandbox(ctx context.Context, cfg *config.Config, r *Report) string {
	if !slices.ContainsFunc(r.Agents, func(a Agent) bool { return a.Kind == "native" }) {
		return ""
	}
	return adapters.OneLine(sandbox.Checked(ctx, cfg.Sandbox.Policy(), nil).Status())
}
