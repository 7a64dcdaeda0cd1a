package detect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hubdev/hub/acp/schema"
	"github.com/hubdev/hub/adapters"
	"github.com/hubdev/hub/adapters/acpclient"
	"github.com/hubdev/hub/internal/config"
)

// initCacheFile keeps each ACP agent's initialize answer, keyed by its
// program (path, mtime, size) and arguments: what a given build can do
// does not change, so the answer outlives the report's TTL and a new
// build asks again.
const initCacheFile = "acp-initialize-v1.json"

// initMu serialises the read-modify-write of the cache file within hub.
var initMu sync.Mutex

func initKey(path string, args []string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d %s", path, st.ModTime().UnixNano(), st.Size(), strings.Join(args, "\x00"))
}

func readInits(cacheDir string) map[string]schema.InitializeResponse {
	m := map[string]schema.InitializeResponse{}
	if data, err := os.ReadFile(filepath.Join(cacheDir, initCacheFile)); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	return m
}

// CachedInitialize returns the initialize answer doctor cached for the
// program at path run with args.
func CachedInitialize(cacheDir, path string, args []string) (schema.InitializeResponse, bool) {
	key := initKey(path, args)
	if key == "" {
		return schema.InitializeResponse{}, false
	}
	initMu.Lock()
	defer initMu.Unlock()
	r, ok := readInits(cacheDir)[key]
	return r, ok
}

func saveInitialize(cacheDir, key string, r schema.InitializeResponse) {
	initMu.Lock()
	defer initMu.Unlock()
	m := readInits(cacheDir)
	for k := range m { // drop the answers of builds that are gone
		if path, _, _ := strings.Cut(k, " "); initKey(path, nil) == "" {
			delete(m, k)
		}
	}
	m[key] = r
	data, err := json.Marshal(m)
	if err != nil || os.MkdirAll(cacheDir, 0o755) != nil {
		return
	}
	tmp := filepath.Join(cacheDir, initCacheFile+".tmp")
	if os.WriteFile(tmp, data, 0o644) == nil {
		_ = os.Rename(tmp, filepath.Join(cacheDir, initCacheFile))
	}
}

// initialize fills a's capabilities from the agent's own initialize
// answer, cached; an agent that fails it cannot run (the fix says why),
// one that is only slow gets a warning.
func (p *prober) initialize(ctx context.Context, a *Agent, argv []string, env map[string]string) {
	key := initKey(a.Path, argv[1:])
	if !p.o.NoCache && key != "" {
		if r, ok := CachedInitialize(p.o.CacheDir, a.Path, argv[1:]); ok {
			a.Capabilities = capsOf(r)
			return
		}
	}
	r, err := acpclient.Probe(ctx, append([]string{a.Path}, argv[1:]...), adapters.Environ(p.environ(), env))
	switch {
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		a.Warnings = append(a.Warnings, fmt.Sprintf("`%s` did not answer initialize in time; capabilities unknown until it does", strings.Join(argv, " ")))
		return
	case err != nil:
		a.Fix = fmt.Sprintf("`%s` does not speak ACP here: %v", strings.Join(argv, " "), err)
		return
	}
	a.Capabilities = capsOf(r)
	if !p.o.NoCache && key != "" {
		saveInitialize(p.o.CacheDir, key, r)
	}
}

func capsOf(r schema.InitializeResponse) *adapters.Capabilities {
	c := acpclient.CapsFromInit(r)
	return &c
}

// environ is the probed environment in os.Environ form.
func (p *prober) environ() []string {
	env := make([]string, 0, len(p.env))
	for k, v := range p.env {
		env = append(env, k+"="+v)
	}
	return env
}

// catalogArgv is the argv a catalogued agent runs with: its entry under
// the user's [agents.NAME] overrides.
func catalogArgv(s Spec, ac config.AgentConfig) config.AgentConfig {
	return ac.Over(config.AgentConfig{Command: config.Command{s.Bin}, Args: s.ACPArgs, Env: s.Env})
}
