//go:build e2e && unix

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"

// initializeOnce runs cmd with one initialize request on stdin (then EOF)
// and returns the result of the one answer on stdout.
func initializeOnce(t *testing.T, cmd *exec.Cmd) map[string]any {
	t.Helper()
	cmd.Stdin = strings.NewReader(initializeLine)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v\nstdout %s\nstderr %s", cmd.Args, err, out, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var msg struct {
		ID     int            `json:"id"`
		Result map[string]any `json:"result"`
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &msg) != nil || msg.ID != 1 || msg.Result == nil {
		t.Fatalf("stdout is not one initialize answer:\n%s\nstderr %s", out, stderr.String())
	}
	if msg.Result["protocolVersion"] != float64(1) {
		t.Fatalf("protocolVersion %v, want 1", msg.Result["protocolVersion"])
	}
	return msg.Result
}

func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// make dist writes the six archives, their checksums, the registry entry
// and the npm packages; the linux archive unpacks to a hub that answers
// `version` and an ACP initialize, and so does the npm launcher.
func TestDist_ArchivesRegistryAndNPMWork(t *testing.T) {
	root, out := e2eRoot(t), t.TempDir()
	mustRun(t, root, os.Environ(), "make", "-s", "dist", "VERSION=0.0.1", "DIST="+out)

	sums := mustRun(t, out, os.Environ(), "sha256sum", "-c", "checksums.txt")
	for _, a := range []string{"linux_amd64.tar.gz", "linux_arm64.tar.gz", "darwin_amd64.tar.gz",
		"darwin_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		if !strings.Contains(sums, "hub_0.0.1_"+a+": OK") {
			t.Errorf("checksums.txt does not vouch for hub_0.0.1_%s:\n%s", a, sums)
		}
	}
	var agent struct {
		ID           string
		Version      string
		Distribution struct {
			Binary map[string]struct{ Archive, Cmd, SHA256 string }
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "registry", "hub", "agent.json"))
	if err != nil || json.Unmarshal(b, &agent) != nil || agent.Version != "0.0.1" || len(agent.Distribution.Binary) != 6 {
		t.Fatalf("registry entry: %v\n%s", err, b)
	}

	unpacked := t.TempDir()
	mustRun(t, unpacked, os.Environ(), "tar", "-xzf", filepath.Join(out, "hub_0.0.1_linux_"+runtime.GOARCH+".tar.gz"))
	hub := filepath.Join(unpacked, "hub")
	checkLicenses(t, root, unpacked)
	commit := strings.TrimSpace(mustRun(t, root, os.Environ(), "git", "rev-parse", "HEAD"))
	if v := mustRun(t, unpacked, os.Environ(), hub, "version"); !strings.HasPrefix(v, "hub 0.0.1 (commit "+commit[:12]+", built ") {
		t.Errorf("hub version from the archive says %q", v)
	}
	res := initializeOnce(t, exec.Command(hub, "acp"))
	if info, _ := res["agentInfo"].(map[string]any); info["version"] != "0.0.1" {
		t.Errorf("agentInfo %v, want version 0.0.1", res["agentInfo"])
	}

	// npm installs the launcher and the one platform package that matches.
	nm := filepath.Join(t.TempDir(), "node_modules", "@hubdev")
	plat := "hub-linux-" + map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"hub", plat} {
		mustRun(t, out, os.Environ(), "cp", "-r", filepath.Join(out, "npm", p), filepath.Join(nm, p))
	}
	launcher := filepath.Join(nm, "hub", "bin", "hub.js")
	if v := mustRun(t, out, os.Environ(), "node", launcher, "version"); !strings.HasPrefix(v, "hub 0.0.1 ") {
		t.Errorf("npm launcher: hub version says %q", v)
	}
	initializeOnce(t, exec.Command("node", launcher, "acp"))
}

// checkLicenses checks an unpacked archive carries hub's LICENSE and the
// license text of every module the binary links.
func checkLicenses(t *testing.T, root, unpacked string) {
	t.Helper()
	license, err := os.ReadFile(filepath.Join(unpacked, "LICENSE"))
	if err != nil || !bytes.Contains(license, []byte("Apache License")) || !bytes.Contains(license, []byte("Version 2.0, January 2004")) {
		t.Errorf("archive LICENSE is not Apache-2.0 (%v)", err)
	}
	notices, err := os.ReadFile(filepath.Join(unpacked, "THIRD_PARTY_NOTICES"))
	if err != nil {
		t.Fatalf("archive has no THIRD_PARTY_NOTICES: %v", err)
	}
	mods := mustRun(t, root, os.Environ(), "go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Dir}}{{end}}{{end}}", "./cmd/hub")
	for _, l := range strings.Split(strings.TrimSpace(mods), "\n") {
		path, dir, _ := strings.Cut(l, "\t")
		if !bytes.Contains(notices, []byte(path+" ")) {
			t.Errorf("THIRD_PARTY_NOTICES does not name %s", path)
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
		if err == nil && !bytes.Contains(notices, bytes.TrimSpace(text)) {
			t.Errorf("THIRD_PARTY_NOTICES lacks the LICENSE text of %s", path)
		}
	}
	if !bytes.Contains(notices, []byte("Go standard library")) {
		t.Error("THIRD_PARTY_NOTICES does not name the Go standard library")
	}
}

// The README's first command, run as written in a fresh login shell (a new
// HOME whose ~/.profile only adds Go, and the system's PATH), installs hub
// and serves ACP.
func TestReadme_FirstCommandWorksInFreshLoginShell(t *testing.T) {
	root := e2eRoot(t)
	first := readmeFirstCommand(t, filepath.Join(root, "README.md"))
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := func(k string) string {
		return strings.TrimSpace(mustRun(t, root, os.Environ(), "go", "env", k))
	}
	home := t.TempDir()
	// Go's install instructions put its bin dir on PATH in ~/.profile; a
	// login shell's /etc/profile resets PATH before that.
	profile := "export PATH=$PATH:" + filepath.Dir(goBin) + "\n"
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-lc", first)
	cmd.Dir = root
	// The module and build caches are the machine's, so the test needs no
	// network; everything else is what a new user's login shell has.
	cmd.Env = []string{"HOME=" + home, "USER=" + os.Getenv("USER"), "SHELL=/bin/bash", "LANG=C.UTF-8",
		"PATH=" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin",
		"GOMODCACHE=" + goEnv("GOMODCACHE"), "GOCACHE=" + goEnv("GOCACHE"), "GOFLAGS=-mod=mod", "GOPROXY=off"}
	initializeOnce(t, cmd)
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "hub")); err != nil {
		t.Errorf("make install did not put hub in ~/.local/bin: %v", err)
	}
}

// readmeFirstCommand is the first line of the README's first sh block,
// without its trailing comment.
func readmeFirstCommand(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "```sh" && sc.Scan() {
			cmd, _, _ := strings.Cut(sc.Text(), "#")
			return strings.TrimSpace(cmd)
		}
	}
	t.Fatal("README has no ```sh block")
	return ""
}
