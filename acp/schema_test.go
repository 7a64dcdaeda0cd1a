package acp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaPath finds the ACP schema: $ACP_SCHEMA, else shared/acp/schema.json
// by walking up from the package directory (the shared folder sits next to
// the repository clone), else the byte-identical copy in the official SDK
// that `make e2e-deps` installs under .cache/e2e (or $HUB_E2E_CACHE). Found
// once: the test client validates every line, and BenchmarkEventOverhead
// measured its stats (six per line without a schema) with hub's work.
var schemaPath = sync.OnceValue(func() string {
	if p := os.Getenv("ACP_SCHEMA"); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for range 6 {
		p := filepath.Join(dir, "shared", "acp", "schema.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	cache := os.Getenv("HUB_E2E_CACHE")
	if cache == "" {
		cache = filepath.Join("..", ".cache", "e2e")
	}
	p := filepath.Join(cache, "acp-sdk", "node_modules", "@agentclientprotocol", "sdk", "schema", "v1", "schema.json")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
})

var schemaState struct {
	once     sync.Once
	compiler *jsonschema.Compiler
	err      error
	mu       sync.Mutex
	cache    map[string]*jsonschema.Schema
}

const schemaURL = "mem://acp/schema.json"

// acpSchema returns a compiled $defs/<def>, or nil when the shared schema
// file is not present next to the repository.
func acpSchema(t testing.TB, def string) *jsonschema.Schema {
	t.Helper()
	p := schemaPath()
	if p == "" {
		return nil
	}
	s := &schemaState
	s.once.Do(func() {
		f, err := os.Open(p)
		if err != nil {
			s.err = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			s.err = err
			return
		}
		c := jsonschema.NewCompiler()
		if s.err = c.AddResource(schemaURL, doc); s.err == nil {
			s.compiler = c
			s.cache = map[string]*jsonschema.Schema{}
		}
	})
	if s.err != nil {
		t.Fatalf("load ACP schema %s: %v", p, s.err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[def]; ok {
		return sch
	}
	sch, err := s.compiler.Compile(schemaURL + "#/$defs/" + def)
	if err != nil {
		t.Fatalf("compile $defs/%s: %v", def, err)
	}
	s.cache[def] = sch
	return sch
}

// validateDef checks data against $defs/<def>; it does nothing when the
// schema file is absent.
func validateDef(t testing.TB, def string, data []byte) {
	t.Helper()
	if def == "" {
		return
	}
	sch := acpSchema(t, def)
	if sch == nil {
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: not JSON: %v: %s", def, err, data)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not validate: %v\n%s", def, err, data)
	}
}

func requireSchema(t *testing.T) {
	t.Helper()
	if schemaPath() == "" {
		t.Skip("shared/acp/schema.json not found next to the repository; schema validation skipped")
	}
}

// jsonEqual compares two JSON documents semantically.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ax, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(ax, by)
}
