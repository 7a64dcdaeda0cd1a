package detect

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/safefile"
)

const cacheFile = "doctor-v2.json"

// baseEnv are the variables every report depends on.
var baseEnv = []string{"PATH", "PATHEXT", "SHELL", "HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "SCOOP", "OPENAI_API_KEY", "OPENAI_BASE_URL"}

// cacheEntries is how many reports the cache keeps, one per recent set of
// options, so switching between them does not probe again.
const cacheEntries = 8

type cacheEntry struct {
	Key    string  `json:"key"`
	Report *Report `json:"report"`
}

type cacheFileData struct {
	Entries []cacheEntry `json:"entries"`
}

// cacheKey hashes everything a report depends on that is cheap to read:
// env values, config, and the mtime and size of every binary and auth file.
func (p *prober) cacheKey(jobs []job) string {
	h := sha256.New()
	fmt.Fprintf(h, "schema=%d probe=%v timeout=%s agents=%v all=%v\n", SchemaVersion, p.o.Probe, p.o.Timeout, p.o.Agents, p.o.All)
	keys := slices.Clone(baseEnv)
	for _, s := range p.o.Specs {
		keys = append(keys, s.EnvVars...)
	}
	for _, j := range p.native { // Profiles lists them in a stable order
		keys = append(keys, j.Profile.APIKeyEnv)
	}
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, p.env[k])
	}
	// Credentials named by agent configs (codex's env_key, ...) are not
	// known up front: every *_KEY and *_TOKEN variable counts.
	for _, k := range slices.Sorted(maps.Keys(p.env)) {
		if strings.HasSuffix(k, "_KEY") || strings.HasSuffix(k, "_TOKEN") {
			fmt.Fprintf(h, "cred %s=%s\n", k, p.env[k])
		}
	}
	cfg, _ := json.Marshal(struct{ A, P any }{p.o.Config.Agents, p.o.Config.Providers})
	h.Write(cfg)
	if p.o.Registry != nil {
		fmt.Fprintf(h, "\nregistry=%v\n", p.o.Registry.Names())
	}
	for _, j := range jobs {
		fmt.Fprintf(h, "job %s\n", j.name)
		for _, b := range j.bins {
			stamp(h, p.lookPath(b))
		}
		for _, f := range j.files {
			stamp(h, f)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func stamp(h io.Writer, path string) {
	if path == "" {
		fmt.Fprintln(h, "-")
		return
	}
	st, err := os.Stat(path)
	if err != nil {
		fmt.Fprintf(h, "%s missing\n", path)
		return
	}
	fmt.Fprintf(h, "%s %d %d\n", path, st.ModTime().UnixNano(), st.Size())
}

func (p *prober) cachePath() string { return filepath.Join(p.o.CacheDir, cacheFile) }

// readCache returns the cache file's fresh entries, newest first.
func (p *prober) readCache() []cacheEntry {
	var f cacheFileData
	if data, err := os.ReadFile(p.cachePath()); err != nil || json.Unmarshal(data, &f) != nil {
		return nil
	}
	now := p.o.Now()
	return slices.DeleteFunc(f.Entries, func(e cacheEntry) bool {
		return e.Report == nil || e.Report.GeneratedAt.After(now) || now.Sub(e.Report.GeneratedAt) > cacheTTL
	})
}

func (p *prober) loadCache(key string) *Report {
	es := p.readCache()
	if i := slices.IndexFunc(es, func(e cacheEntry) bool { return e.Key == key }); i >= 0 {
		es[i].Report.Cached = true
		return es[i].Report
	}
	return nil
}

// saveCache puts r first, keeps the other fresh entries up to
// cacheEntries, and writes atomically; a failure only costs a probe.
func (p *prober) saveCache(key string, r *Report) {
	es := slices.DeleteFunc(p.readCache(), func(e cacheEntry) bool { return e.Key == key })
	es = append([]cacheEntry{{Key: key, Report: r}}, es[:min(len(es), cacheEntries-1)]...)
	if data, err := json.Marshal(cacheFileData{Entries: es}); err == nil {
		_ = safefile.WriteAtomic(p.cachePath(), data, 0o600)
	}
}
