package acpclient

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hubdev/hub/acp/schema"
)

// initCacheFile keeps each ACP agent's initialize answer, keyed by its
// program (path, mtime, size) and arguments: what a given build can do
// does not change, so the answer outlives doctor's report and a new build
// asks again.
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

// CachedInitialize returns the initialize answer cached (by doctor) for
// the program at path run with args.
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

// SaveInitialize caches r as the initialize answer of the program at path
// run with args; a failure only costs asking again.
func SaveInitialize(cacheDir, path string, args []string, r schema.InitializeResponse) {
	key := initKey(path, args)
	if key == "" {
		return
	}
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
