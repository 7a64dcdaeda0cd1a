package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeRelease packages a distinct fake binary per target into a new dir.
func fakeRelease(t *testing.T) (Release, string) {
	t.Helper()
	src := t.TempDir()
	bins := map[Target]string{}
	for _, tg := range Targets {
		p := filepath.Join(src, tg.GOOS+"_"+tg.GOARCH, tg.Exe())
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("binary for "+tg.String()), 0o700); err != nil {
			t.Fatal(err)
		}
		bins[tg] = p
	}
	readme := filepath.Join(src, "README.md")
	if err := os.WriteFile(readme, []byte("# hub\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Release{Version: "1.2.3", Commit: "abc", Date: time.Unix(1700000000, 0).UTC(),
		BaseURL: "https://example.com/v1.2.3", Docs: []string{readme}}
	out := t.TempDir()
	if err := r.Package(out, bins); err != nil {
		t.Fatal(err)
	}
	return r, out
}

// tree maps every file under dir to its bytes and mode.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		m[rel] = info.Mode().String() + " " + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPackage_TwoRunsAreByteIdentical(t *testing.T) {
	_, a := fakeRelease(t)
	_, b := fakeRelease(t)
	ta, tb := tree(t, a), tree(t, b)
	if len(ta) == 0 || len(ta) != len(tb) {
		t.Fatalf("runs wrote %d and %d files", len(ta), len(tb))
	}
	for name, v := range ta {
		if tb[name] != v {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestPackage_ArchivesHoldBinaryAtRootWithFixedTimes(t *testing.T) {
	r, out := fakeRelease(t)
	for _, tg := range Targets {
		t.Run(tg.String(), func(t *testing.T) {
			files := readArchive(t, filepath.Join(out, tg.Archive(r.Version)), tg)
			bin, ok := files[tg.Exe()]
			if !ok {
				t.Fatalf("no %s at the archive root: %v", tg.Exe(), files)
			}
			if bin.data != "binary for "+tg.String() || bin.mode.Perm() != 0o755 {
				t.Errorf("binary %q mode %v", bin.data, bin.mode)
			}
			if doc := files["README.md"]; doc.data != "# hub\n" || doc.mode.Perm() != 0o644 {
				t.Errorf("README %q mode %v", doc.data, doc.mode)
			}
			for name, f := range files {
				if !f.mtime.Equal(r.Date) {
					t.Errorf("%s mtime %v, want %v", name, f.mtime, r.Date)
				}
			}
		})
	}
}

type archived struct {
	data  string
	mode  fs.FileMode
	mtime time.Time
}

func readArchive(t *testing.T, path string, tg Target) map[string]archived {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]archived{}
	if tg.GOOS == "windows" {
		zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			files[f.Name] = archived{string(b), f.Mode(), f.Modified}
		}
		return files
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = archived{string(b), h.FileInfo().Mode(), h.ModTime}
	}
}

func TestPackage_ChecksumsMatchArchives(t *testing.T) {
	_, out := fakeRelease(t)
	b, err := os.ReadFile(filepath.Join(out, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(Targets) {
		t.Fatalf("%d checksum lines, want %d:\n%s", len(lines), len(Targets), b)
	}
	for _, l := range lines {
		sum, name, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("line %q is not 'sum  name'", l)
		}
		got, err := sha256File(filepath.Join(out, name))
		if err != nil || got != sum {
			t.Errorf("%s: sha256 %s, checksums.txt says %s (%v)", name, got, sum, err)
		}
	}
}

func TestPackage_RegistryEntryNamesEveryPlatform(t *testing.T) {
	r, out := fakeRelease(t)
	var a registryAgent
	readJSON(t, filepath.Join(out, "registry", "hub", "agent.json"), &a)
	if a.ID != "hub" || a.Version != "1.2.3" || a.Description == "" || a.Name == "" {
		t.Fatalf("entry %+v lacks a required field", a)
	}
	want := map[string]Target{
		"linux-x86_64": {"linux", "amd64"}, "linux-aarch64": {"linux", "arm64"},
		"darwin-x86_64": {"darwin", "amd64"}, "darwin-aarch64": {"darwin", "arm64"},
		"windows-x86_64": {"windows", "amd64"}, "windows-aarch64": {"windows", "arm64"},
	}
	if len(a.Distribution.Binary) != len(want) {
		t.Fatalf("binary platforms %v, want %v", a.Distribution.Binary, want)
	}
	for plat, tg := range want {
		bin := a.Distribution.Binary[plat]
		sum, _ := sha256File(filepath.Join(out, tg.Archive(r.Version)))
		if bin.Archive != r.BaseURL+"/"+tg.Archive(r.Version) || bin.SHA256 != sum ||
			bin.Cmd != "./"+tg.Exe() || strings.Join(bin.Args, " ") != "acp" {
			t.Errorf("%s: %+v", plat, bin)
		}
	}
	if a.Distribution.NPX == nil || a.Distribution.NPX.Package != "@hubdev/hub@1.2.3" {
		t.Errorf("npx distribution %+v", a.Distribution.NPX)
	}
	icon, err := os.ReadFile(filepath.Join(out, "registry", "hub", "icon.svg"))
	if err != nil || !bytes.Contains(icon, []byte(`width="16" height="16"`)) || !bytes.Contains(icon, []byte("currentColor")) {
		t.Errorf("icon.svg must be 16x16 and currentColor: %s %v", icon, err)
	}
}

func TestPackage_NPMLauncherDependsOnEveryPlatformPackage(t *testing.T) {
	r, out := fakeRelease(t)
	var launcher npmPackage
	readJSON(t, filepath.Join(out, "npm", "hub", "package.json"), &launcher)
	if launcher.Name != "@hubdev/hub" || launcher.Bin["hub"] != "bin/hub.js" || len(launcher.OptionalDependencies) != len(Targets) {
		t.Fatalf("launcher %+v", launcher)
	}
	if _, err := os.Stat(filepath.Join(out, "npm", "hub", "bin", "hub.js")); err != nil {
		t.Fatal(err)
	}
	for _, tg := range Targets {
		name := platformPackage(tg)
		if launcher.OptionalDependencies[name] != r.Version {
			t.Errorf("launcher depends on %s@%q", name, launcher.OptionalDependencies[name])
		}
		dir := filepath.Join(out, "npm", strings.TrimPrefix(name, "@hubdev/"))
		var p npmPackage
		readJSON(t, filepath.Join(dir, "package.json"), &p)
		if p.Name != name || p.Version != r.Version || len(p.OS) != 1 || p.OS[0] != tg.npmOS() || len(p.CPU) != 1 || p.CPU[0] != tg.npmCPU() {
			t.Errorf("%s: %+v", name, p)
		}
		b, err := os.ReadFile(filepath.Join(dir, "bin", tg.Exe()))
		if err != nil || string(b) != "binary for "+tg.String() {
			t.Errorf("%s carries %q (%v)", name, b, err)
		}
	}
}

func TestTarget_NamesPerEcosystem(t *testing.T) {
	tests := []struct {
		t                        Target
		archive, registry, npmOS string
		npmCPU                   string
	}{
		{Target{"linux", "amd64"}, "hub_1.0.0_linux_amd64.tar.gz", "linux-x86_64", "linux", "x64"},
		{Target{"darwin", "arm64"}, "hub_1.0.0_darwin_arm64.tar.gz", "darwin-aarch64", "darwin", "arm64"},
		{Target{"windows", "amd64"}, "hub_1.0.0_windows_amd64.zip", "windows-x86_64", "win32", "x64"},
	}
	for _, tt := range tests {
		t.Run(tt.t.String(), func(t *testing.T) {
			if got := tt.t.Archive("1.0.0"); got != tt.archive {
				t.Errorf("archive %q, want %q", got, tt.archive)
			}
			if got := tt.t.registryPlatform(); got != tt.registry {
				t.Errorf("registry %q, want %q", got, tt.registry)
			}
			if tt.t.npmOS() != tt.npmOS || tt.t.npmCPU() != tt.npmCPU {
				t.Errorf("npm %s/%s, want %s/%s", tt.t.npmOS(), tt.t.npmCPU(), tt.npmOS, tt.npmCPU)
			}
		})
	}
}

func TestNormalizeVersion_SemverOnly(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"1.2.3", "1.2.3", false},
		{"v1.2.3", "1.2.3", false},
		{"1.2.3-rc.1", "1.2.3-rc.1", false},
		{"43cbbcd-dirty", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeVersion(tt.in)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("NormalizeVersion(%q) = %q, %v", tt.in, got, err)
			}
			if err != nil && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v is not ErrVersion", err)
			}
		})
	}
}

// sha256File is the sha256 of the file at path, read back from disk.
func sha256File(path string) (string, error) {
	b, err := os.ReadFile(path)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), err
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestPackage_NPMPackagesArePublicApacheWithNodeEngine(t *testing.T) {
	_, out := fakeRelease(t)
	dirs, err := filepath.Glob(filepath.Join(out, "npm", "*"))
	if err != nil || len(dirs) != len(Targets)+1 {
		t.Fatalf("npm packages %v (%v)", dirs, err)
	}
	for _, dir := range dirs {
		var p npmPackage
		readJSON(t, filepath.Join(dir, "package.json"), &p)
		if p.License != "Apache-2.0" || p.PublishConfig["access"] != "public" || p.Engines["node"] != ">=18" {
			t.Errorf("%s: license %q, publishConfig %v, engines %v", p.Name, p.License, p.PublishConfig, p.Engines)
		}
	}
	var a registryAgent
	readJSON(t, filepath.Join(out, "registry", "hub", "agent.json"), &a)
	if a.License != "Apache-2.0" {
		t.Errorf("registry entry license %q", a.License)
	}
}

// notice module writes a module at dir with files.
func noticeModule(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A main module linking example.com/linked (licensed, with a NOTICE) and,
// when unlicensed is set, example.com/bare (no license file); example.com/testonly
// is needed by a test only.
func noticeFixture(t *testing.T, unlicensed bool) string {
	t.Helper()
	root := t.TempDir()
	mainGo := "package main\n\nimport _ \"example.com/linked\"\n\nfunc main() {}\n"
	if unlicensed {
		mainGo = "package main\n\nimport (\n\t_ \"example.com/bare\"\n\t_ \"example.com/linked\"\n)\n\nfunc main() {}\n"
	}
	noticeModule(t, filepath.Join(root, "app"), map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.22\n\nrequire (\n\texample.com/linked v0.0.0\n\texample.com/bare v0.0.0\n\texample.com/testonly v0.0.0\n)\n\n" +
			"replace example.com/linked => ../linked\n\nreplace example.com/bare => ../bare\n\nreplace example.com/testonly => ../testonly\n",
		"main.go":      mainGo,
		"main_test.go": "package main\n\nimport _ \"example.com/testonly\"\n",
	})
	noticeModule(t, filepath.Join(root, "linked"), map[string]string{
		"go.mod": "module example.com/linked\n", "l.go": "package linked\n",
		"LICENSE.txt": "linked license text\n", "NOTICE": "linked notice text\n", "README.md": "not a license\n",
	})
	noticeModule(t, filepath.Join(root, "bare"), map[string]string{"go.mod": "module example.com/bare\n", "b.go": "package bare\n"})
	noticeModule(t, filepath.Join(root, "testonly"), map[string]string{
		"go.mod": "module example.com/testonly\n", "t.go": "package testonly\n", "LICENSE": "testonly license text\n",
	})
	return filepath.Join(root, "app")
}

func TestNotices_CarryTheLicenseOfEveryLinkedModule(t *testing.T) {
	needGo(t)
	got, err := Notices(context.Background(), noticeFixture(t, false), ".", Targets[:2])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Go standard library (go", "Redistribution and use in source and binary forms",
		"example.com/linked", "linked license text", "linked notice text"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("notices lack %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"testonly", "not a license"} {
		if bytes.Contains(got, []byte(unwanted)) {
			t.Errorf("notices name %q, which the binary does not link:\n%s", unwanted, got)
		}
	}
}

func TestNotices_RefuseAModuleWithoutLicense(t *testing.T) {
	needGo(t)
	_, err := Notices(context.Background(), noticeFixture(t, true), ".", Targets[:1])
	if err == nil || !strings.Contains(err.Error(), "example.com/bare") {
		t.Fatalf("err = %v, want one naming example.com/bare", err)
	}
}

// needGo skips where the go command is missing (the Wine root of make
// test-windows): the notices come from the module graph it lists.
func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed here; the notices are built from its module graph")
	}
}
