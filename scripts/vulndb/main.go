// Command vulndb prints the directory of an offline Go vulnerability
// database for govulncheck's -db file://… flag, building it on first use from
// the OSV entries of the golang.org/x/vulndb module (fetched once through the
// module proxy) and caching it under the user's cache directory, keyed by the
// module version. `make vulncheck` runs it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	flags := flag.NewFlagSet("vulndb", flag.ContinueOnError)
	version := flags.String("version", "", "golang.org/x/vulndb module version")
	cache := flags.String("cache", "", "cache directory (default: <user cache dir>/hub/vulndb)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *version == "" {
		return errors.New("-version is required (a golang.org/x/vulndb module version)")
	}
	if *cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("no cache directory (set -cache): %w", err)
		}
		*cache = filepath.Join(dir, "hub", "vulndb")
	}
	dir, err := ensure(*cache, *version)
	if err != nil {
		return err
	}
	fmt.Println(dir)
	return nil
}

// ensure returns the database directory for version under cache, building it
// when missing. The database is written beside it and renamed into place, so
// a concurrent or interrupted build never leaves a half-written one.
func ensure(cache, version string) (string, error) {
	dir := filepath.Join(cache, version)
	if _, err := os.Stat(filepath.Join(dir, "index", "modules.json")); err == nil {
		return dir, nil
	}
	mod, err := download(version)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, version+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := Build(filepath.Join(mod.Dir, "data", "osv"), tmp, mod.Time); err != nil {
		return "", fmt.Errorf("building the database from golang.org/x/vulndb@%s: %w", version, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "index", "modules.json")); statErr == nil {
			return dir, nil // another build won the race
		}
		return "", err
	}
	return dir, nil
}

type module struct {
	Dir  string
	Time time.Time
}

// download fetches golang.org/x/vulndb@version into the module cache (a no-op
// once it is there) and returns its directory and commit time.
func download(version string) (module, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "golang.org/x/vulndb@"+version)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct {
		Dir, Info, Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return module{}, fmt.Errorf("go mod download golang.org/x/vulndb@%s: %s", version, info.Error)
	}
	if err != nil {
		return module{}, fmt.Errorf("go mod download golang.org/x/vulndb@%s: %w: %s", version, err, strings.TrimSpace(stderr.String()))
	}
	var v struct{ Time time.Time } // the commit time, zero when the .info file says none
	if b, err := os.ReadFile(info.Info); err == nil {
		_ = json.Unmarshal(b, &v)
	}
	return module{Dir: info.Dir, Time: v.Time}, nil
}

// entry is the part of an OSV entry the index needs.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
	} `json:"affected"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
}

type moduleMeta struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

// Build writes the v1 database layout govulncheck reads
// (https://go.dev/security/vuln/database#api) into out from the OSV entries
// in src: index/db.json, index/modules.json and ID/<id>.json. An entry
// without a modification time (the repository's files carry none) gets
// modified, the vulndb commit time. The index leaves out each module's
// "fixed" version: it is only a hint that lets govulncheck skip fetching an
// entry, and without it govulncheck reads every entry of a module and
// decides from the entry's own ranges.
func Build(src, out string, modified time.Time) error {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no OSV entries (*.json) in %s", src)
	}
	for _, d := range []string{"index", "ID"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return err
		}
	}
	var latest time.Time
	modules := map[string]*moduleMeta{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var e entry
		if err := json.Unmarshal(b, &e); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if e.ID+".json" != filepath.Base(f) {
			return fmt.Errorf("%s: entry id is %q", f, e.ID)
		}
		if e.Modified.IsZero() {
			e.Modified = modified
		}
		if e.Modified.After(latest) {
			latest = e.Modified
		}
		for _, a := range e.Affected {
			m := modules[a.Package.Name]
			if m == nil {
				m = &moduleMeta{Path: a.Package.Name}
				modules[m.Path] = m
			}
			if !slices.ContainsFunc(m.Vulns, func(v moduleVuln) bool { return v.ID == e.ID }) { // once per module
				m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified})
			}
		}
		if err := os.WriteFile(filepath.Join(out, "ID", e.ID+".json"), b, 0o644); err != nil {
			return err
		}
	}
	index := make([]*moduleMeta, 0, len(modules))
	for _, m := range modules {
		sort.Slice(m.Vulns, func(i, j int) bool { return m.Vulns[i].ID < m.Vulns[j].ID })
		index = append(index, m)
	}
	sort.Slice(index, func(i, j int) bool { return index[i].Path < index[j].Path })
	if err := writeJSON(filepath.Join(out, "index", "modules.json"), index); err != nil {
		return err
	}
	return writeJSON(filepath.Join(out, "index", "db.json"), struct {
		Modified time.Time `json:"modified"`
	}{latest})
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
