package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func writeEntry(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuild_IndexesEveryAffectedModule(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	writeEntry(t, src, "GO-2026-0001.json", `{"id":"GO-2026-0001","modified":"0001-01-01T00:00:00Z",
		"affected":[{"package":{"name":"stdlib"}},{"package":{"name":"toolchain"}},{"package":{"name":"stdlib"}}]}`)
	writeEntry(t, src, "GO-2026-0002.json", `{"id":"GO-2026-0002","modified":"2026-01-02T00:00:00Z",
		"affected":[{"package":{"name":"golang.org/x/sys"}}]}`)
	vulndbTime := time.Date(2026, 11, 5, 23, 49, 57, 0, time.UTC)
	if err := Build(src, out, vulndbTime); err != nil {
		t.Fatal(err)
	}
	var modules []struct {
		Path  string
		Vulns []struct{ ID string }
	}
	readJSON(t, filepath.Join(out, "index", "modules.json"), &modules)
	got := map[string][]string{}
	for _, m := range modules {
		for _, v := range m.Vulns {
			got[m.Path] = append(got[m.Path], v.ID)
		}
	}
	want := map[string][]string{
		"stdlib":           {"GO-2026-0001"},
		"toolchain":        {"GO-2026-0001"},
		"golang.org/x/sys": {"GO-2026-0002"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("modules index = %v, want %v", got, want)
	}
	var db struct{ Modified time.Time }
	readJSON(t, filepath.Join(out, "index", "db.json"), &db)
	if !db.Modified.Equal(vulndbTime) {
		t.Errorf("db modified = %v, want the vulndb time %v (an entry without a time counts as that)", db.Modified, vulndbTime)
	}
	for _, id := range []string{"GO-2026-0001", "GO-2026-0002"} {
		if _, err := os.Stat(filepath.Join(out, "ID", id+".json")); err != nil {
			t.Errorf("entry %s not written: %v", id, err)
		}
	}
}

func TestBuild_Refuses(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"no entries", nil},
		{"id differs from the file name", map[string]string{"GO-2026-0001.json": `{"id":"GO-2026-0009"}`}},
		{"not JSON", map[string]string{"GO-2026-0001.json": `{`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			for name, body := range tt.files {
				writeEntry(t, src, name, body)
			}
			if err := Build(src, t.TempDir(), time.Time{}); err == nil {
				t.Fatal("Build succeeded, want an error")
			}
		})
	}
}

func TestEnsure_UsesTheCachedDatabase(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "v1")
	if err := os.MkdirAll(filepath.Join(dir, "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeEntry(t, filepath.Join(dir, "index"), "modules.json", `[]`)
	t.Setenv("PATH", "") // no go command: a download would fail
	got, err := ensure(cache, "v1")
	if err != nil || got != dir {
		t.Fatalf("ensure = %q, %v; want the cached %q", got, err, dir)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
