package detect

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

const defaultOpenAIBase = "https://api.openai.com/v1"

func (p *prober) providerNames() []string {
	names := []string{"openai"}
	for n := range p.o.Config.Providers {
		if n != "openai" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func (p *prober) probeNative(ctx context.Context, name string) Agent {
	a := Agent{Name: name, Kind: "native"}
	a.Capabilities, _ = p.caps(name)
	prof, ok := p.o.Config.Providers[name]
	ep := &Endpoint{BaseURL: prof.BaseURL, Model: prof.Model, KeyEnv: prof.APIKeyEnv}
	if !ok && name == "openai" {
		ep.BaseURL, ep.KeyEnv = p.getenv("OPENAI_BASE_URL"), "OPENAI_API_KEY"
		if ep.BaseURL == "" {
			ep.BaseURL = defaultOpenAIBase
		}
	}
	a.Endpoint = ep
	key := ""
	if ep.KeyEnv != "" {
		key = p.getenv(ep.KeyEnv)
		ep.KeySet = key != ""
	}
	switch {
	case ep.BaseURL == "":
		a.Auth = Auth{State: AuthUnknown}
		a.Fix = fmt.Sprintf("[providers.%s] has no base_url (or preset hub knows)", name)
	case ep.KeyEnv == "":
		a.Auth = Auth{State: AuthNotRequired}
	case ep.KeySet:
		a.Auth = Auth{State: AuthAPIKey, Source: ep.KeyEnv}
	default:
		a.Auth = Auth{State: AuthNone, Source: ep.KeyEnv}
		a.Fix = fmt.Sprintf("no API key: set %s", ep.KeyEnv)
	}
	if p.o.Probe && ep.BaseURL != "" {
		p.probeEndpoint(ctx, &a, key)
	}
	a.Installed = ep.BaseURL != ""
	a.Ready = a.Fix == ""
	return a
}

func (p *prober) probeEndpoint(ctx context.Context, a *Agent, key string) {
	ep := a.Endpoint
	ep.Probed = true
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(ep.BaseURL, "/")+"/models", nil)
	if err != nil {
		ep.Status = err.Error()
		a.Fix = "bad base_url: " + err.Error()
		return
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := p.o.HTTP.Do(req)
	if err != nil {
		ep.Status = oneLine(err.Error())
		if a.Fix == "" {
			a.Fix = fmt.Sprintf("endpoint %s does not answer: is the server running?", ep.BaseURL)
		}
		return
	}
	resp.Body.Close()
	ep.Status = resp.Status
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		ep.Reachable = true
		if a.Fix == "" {
			a.Fix = fmt.Sprintf("endpoint rejected the key (%s): check %s", resp.Status, ep.KeyEnv)
		}
	case resp.StatusCode < 500:
		ep.Reachable = true
		if resp.StatusCode >= 300 {
			a.Warnings = append(a.Warnings, "GET /models answered "+resp.Status+" (some servers do not list models)")
		}
	default:
		if a.Fix == "" {
			a.Fix = fmt.Sprintf("endpoint %s answered %s", ep.BaseURL, resp.Status)
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
