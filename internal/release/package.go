package release

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed templates
var templates embed.FS

// npmScope owns hub's npm packages; the launcher is npmScope/hub and each
// platform package npmScope/hub-<os>-<cpu>.
const npmScope = "@hubdev"

// Package writes, under out: one archive per binary, checksums.txt, the
// ACP registry entry (registry/hub/agent.json and icon.svg) and the npm
// packages (npm/hub, npm/hub-<os>-<cpu>). bins maps each target to its
// built binary.
func (r Release) Package(out string, bins map[Target]string) error {
	targets := slices.DeleteFunc(slices.Clone(Targets), func(t Target) bool { _, ok := bins[t]; return !ok })
	sums := map[string]string{}
	for _, t := range targets {
		name := t.Archive(r.Version)
		sum, err := writeArchive(filepath.Join(out, name), t, r.entries(t, bins[t]), r.Date)
		if err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		sums[name] = sum
	}
	if err := writeChecksums(filepath.Join(out, "checksums.txt"), sums); err != nil {
		return err
	}
	if err := r.writeRegistry(filepath.Join(out, "registry", "hub"), targets, sums); err != nil {
		return fmt.Errorf("registry entry: %w", err)
	}
	if err := r.writeNPM(filepath.Join(out, "npm"), targets, bins); err != nil {
		return fmt.Errorf("npm packages: %w", err)
	}
	return nil
}

// entries are the binary at the archive's root (the registry's cmd is
// "./hub") and the docs beside it.
func (r Release) entries(t Target, bin string) []entry {
	es := []entry{{name: t.Exe(), src: bin, mode: 0o755}}
	for _, d := range r.Docs {
		es = append(es, entry{name: filepath.Base(d), src: d, mode: 0o644})
	}
	return es
}

// writeChecksums writes "sum  name" lines sorted by name, the format
// `sha256sum -c` and `shasum -a 256 -c` read.
func writeChecksums(path string, sums map[string]string) error {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(sums)) {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// registryAgent is an agent.json of the ACP agent registry
// (github.com/agentclientprotocol/registry, agent.schema.json).
type registryAgent struct {
	ID           string               `json:"id"`
	Name         string               `json:"name"`
	Version      string               `json:"version"`
	Description  string               `json:"description"`
	Repository   string               `json:"repository,omitempty"`
	Authors      []string             `json:"authors,omitempty"`
	License      string               `json:"license,omitempty"`
	Distribution registryDistribution `json:"distribution"`
}

type registryDistribution struct {
	Binary map[string]registryBinary `json:"binary,omitempty"`
	NPX    *registryPackage          `json:"npx,omitempty"`
}

type registryBinary struct {
	Archive string   `json:"archive"`
	SHA256  string   `json:"sha256,omitempty"`
	Cmd     string   `json:"cmd"`
	Args    []string `json:"args,omitempty"`
}

type registryPackage struct {
	Package string   `json:"package"`
	Args    []string `json:"args,omitempty"`
}

const (
	// license is hub's SPDX license identifier (the LICENSE file).
	license     = "Apache-2.0"
	description = "One agent for every coding agent: claude, codex, gemini, qodercli, pi, any ACP agent or any OpenAI-compatible endpoint"
	repository  = "https://github.com/hubdev/hub"
)

func (r Release) writeRegistry(dir string, targets []Target, sums map[string]string) error {
	a := registryAgent{
		ID: "hub", Name: "hub", Version: r.Version, Description: description,
		Repository: repository, Authors: []string{"hub developers"}, License: license,
		Distribution: registryDistribution{
			Binary: map[string]registryBinary{},
			NPX:    &registryPackage{Package: npmScope + "/hub@" + r.Version, Args: []string{"acp"}},
		},
	}
	for _, t := range targets {
		name := t.Archive(r.Version)
		a.Distribution.Binary[t.registryPlatform()] = registryBinary{
			Archive: r.BaseURL + "/" + name, SHA256: sums[name], Cmd: "./" + t.Exe(), Args: []string{"acp"},
		}
	}
	if err := writeJSON(filepath.Join(dir, "agent.json"), a); err != nil {
		return err
	}
	return copyFile(templates.ReadFile, "templates/icon.svg", filepath.Join(dir, "icon.svg"), 0o644)
}

// npmPackage is the part of package.json hub's packages use.
type npmPackage struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Homepage             string            `json:"homepage"`
	License              string            `json:"license"`
	Repository           map[string]string `json:"repository"`
	Bin                  map[string]string `json:"bin,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Files                []string          `json:"files"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	Engines              map[string]string `json:"engines"`
	PublishConfig        map[string]string `json:"publishConfig"`
}

func (r Release) npmBase(name, desc string) npmPackage {
	return npmPackage{Name: name, Version: r.Version, Description: desc, Homepage: repository, License: license,
		Repository: map[string]string{"type": "git", "url": "git+" + repository + ".git"}, Files: []string{"bin"},
		// The launcher is plain CommonJS that runs on every maintained Node;
		// a scoped package is private on npm unless published as public.
		Engines: map[string]string{"node": ">=18"}, PublishConfig: map[string]string{"access": "public"}}
}

// platformPackage is the npm name of t's binary package.
func platformPackage(t Target) string {
	return fmt.Sprintf("%s/hub-%s-%s", npmScope, t.npmOS(), t.npmCPU())
}

// writeNPM writes the platform packages, which carry the binary and install
// only where os and cpu match, and the launcher, which depends on all of
// them as optional and starts the one that installed.
func (r Release) writeNPM(dir string, targets []Target, bins map[Target]string) error {
	launcher := r.npmBase(npmScope+"/hub", description)
	launcher.Bin = map[string]string{"hub": "bin/hub.js"}
	launcher.OptionalDependencies = map[string]string{}
	for _, t := range targets {
		name := platformPackage(t)
		launcher.OptionalDependencies[name] = r.Version
		p := r.npmBase(name, fmt.Sprintf("hub binary for %s", t))
		p.OS, p.CPU = []string{t.npmOS()}, []string{t.npmCPU()}
		pdir := filepath.Join(dir, strings.TrimPrefix(name, npmScope+"/"))
		if err := writePackage(pdir, p, r.Docs); err != nil {
			return err
		}
		if err := copyFile(os.ReadFile, bins[t], filepath.Join(pdir, "bin", t.Exe()), 0o755); err != nil {
			return err
		}
	}
	ldir := filepath.Join(dir, "hub")
	if err := writePackage(ldir, launcher, r.Docs); err != nil {
		return err
	}
	return copyFile(templates.ReadFile, "templates/launcher.js", filepath.Join(ldir, "bin", "hub.js"), 0o755)
}

func writePackage(dir string, p npmPackage, docs []string) error {
	for _, d := range docs {
		if err := copyFile(os.ReadFile, d, filepath.Join(dir, filepath.Base(d)), 0o644); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, "package.json"), p)
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeFile(path, b.Bytes(), 0o644)
}

// copyFile writes what read (os.ReadFile, templates.ReadFile) returns for
// src to dst.
func copyFile(read func(string) ([]byte, error), src, dst string, mode os.FileMode) error {
	b, err := read(src)
	if err != nil {
		return err
	}
	return writeFile(dst, b, mode)
}

// writeFile writes data to dst, making its dir, with mode whatever the umask.
func writeFile(dst string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}
