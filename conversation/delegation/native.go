package delegation

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/conversation"
)

// Func is h as the native loop's delegate_agent tool: the answer and its
// summary as JSON; a turn that failed is an error naming why.
func Func(h Host) adapters.DelegateFunc {
	return func(ctx context.Context, r adapters.DelegateRequest) (string, error) {
		res, err := h.Delegate(ctx, Request(r), nil)
		if err != nil {
			return "", err
		}
		text, summary := res.Text()
		if res.Error != "" {
			return "", errors.New(text + "\n" + summary)
		}
		return text + "\n\n" + summary, nil
	}
}

func (r Result) Text() (text, summary string) {
	b, _ := json.Marshal(r)
	if r.Error != "" {
		return r.Agent + " failed: " + r.Error, string(b)
	}
	return r.Answer, string(b)
}

// ChainEnv is the environment of chain's last agent, the root first.
func ChainEnv(chain ...adapters.Adapter) map[string]string {
	return map[string]string{EnvChain: strings.Join(names(chain), ",")}
}

// names follows an agent that runs as a persona with the persona's, so a
// chain read back from EnvChain binds as the persona's.
func names(chain []adapters.Adapter) []string {
	var out []string
	for _, a := range chain {
		out = append(out, a.Name())
		if p := conversation.RunsAs(a); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// AgentNames are h's agents but those in chain, a persona with what it is
// for and the agent it runs on.
func AgentNames(h Host, chain []string) []string {
	var out []string
	for _, a := range h.Agents() {
		desc, _, _ := strings.Cut(a.Description, "\n")
		switch {
		case slices.Contains(chain, a.Name):
		case a.Backend == "":
			out = append(out, a.Name)
		default:
			out = append(out, a.Name+" ("+strings.TrimSpace(desc)+"; runs on "+a.Backend+")")
		}
	}
	return out
}
