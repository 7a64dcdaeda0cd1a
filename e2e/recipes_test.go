//go:build e2e && unix

package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hubdev/hub/adapters/codex"
	"github.com/hubdev/hub/internal/mockllm"
)

// releaseURL is where the recipes download hub; the test serves the
// archive there instead, the one thing it changes in the steps.
const releaseURL = "https://github.com/hubdev/hub/releases/download"

// ciJob is one README recipe: its variables and its shell steps, as
// written. githubPath: a step adds to PATH through $GITHUB_PATH.
type ciJob struct {
	name       string
	env        map[string]string
	steps      []string
	githubPath bool
}

// ciRecipes reads README's "CI recipes": the review.json schema, the
// GitHub Actions job and the GitLab CI job.
func ciRecipes(t *testing.T) (schema string, jobs []ciJob) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(e2eRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### CI recipes\n")
	if !ok {
		t.Fatal("README has no CI recipes section")
	}
	if i := regexp.MustCompile(`\n##+ `).FindStringIndex(section); i != nil {
		section = section[:i[0]]
	}
	blocks := map[string][]string{}
	for _, m := range regexp.MustCompile("(?s)```(\\w+)\n(.*?)```").FindAllStringSubmatch(section, -1) {
		blocks[m[1]] = append(blocks[m[1]], m[2])
	}
	if len(blocks["json"]) != 1 || len(blocks["yaml"]) != 2 {
		t.Fatalf("want one json and two yaml blocks, got %d and %d", len(blocks["json"]), len(blocks["yaml"]))
	}
	var gh struct {
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	var gl map[string]struct {
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
	}
	if err := yaml.Unmarshal([]byte(blocks["yaml"][0]), &gh); err != nil || len(gh.Jobs) != 1 {
		t.Fatalf("the GitHub Actions job: %v", err)
	}
	if err := yaml.Unmarshal([]byte(blocks["yaml"][1]), &gl); err != nil || len(gl) != 1 {
		t.Fatalf("the GitLab CI job: %v", err)
	}
	for name, j := range gh.Jobs {
		job := ciJob{name: "github/" + name, env: j.Env, githubPath: true}
		for _, s := range j.Steps {
			if s.Run != "" { // uses: steps (checkout) are not shell
				job.steps = append(job.steps, s.Run)
			}
		}
		jobs = append(jobs, job)
	}
	for name, j := range gl {
		jobs = append(jobs, ciJob{name: "gitlab/" + name, env: j.Variables, steps: []string{strings.Join(j.Script, "\n")}})
	}
	return blocks["json"][0], jobs
}

// hubArchive packs HUB_BIN as the release archive of version and serves
// it with its checksums.txt.
func hubArchive(t *testing.T, version string) *httptest.Server {
	t.Helper()
	bin, err := os.ReadFile(e2eHubBin(t))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "hub", Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(bin)
	_ = tw.Close()
	_ = gz.Close()
	dir := filepath.Join(t.TempDir(), "v"+version)
	name := fmt.Sprintf("hub_%s_linux_amd64.tar.gz", version)
	sums := fmt.Sprintf("%x  %s\n%x  hub_%s_windows_amd64.zip\n", sha256.Sum256(buf.Bytes()), name, sha256.Sum256(nil), version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, data := range map[string][]byte{name: buf.Bytes(), "checksums.txt": []byte(sums)} {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(dir))))
	t.Cleanup(srv.Close)
	return srv
}

// runJob runs a job's steps in order, in its own shell each (set -eo
// pipefail, as both CI systems run them), in workdir; a step's failure
// ends the job with it.
func runJob(t *testing.T, job ciJob, workdir string, env []string, stdout, stderr *bytes.Buffer) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ghPath := filepath.Join(t.TempDir(), "github_path")
	if job.githubPath {
		env = append(env, "GITHUB_PATH="+ghPath)
	}
	for k, v := range job.env {
		if !strings.Contains(v, "${{") { // secrets come from the test's env
			env = append(env, k+"="+v)
		}
	}
	// The pinned codex is on PATH already: its npm install is the other
	// download the test does not make.
	npm := func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			if len(args) == 4 && args[0] == "npm" && args[1] == "install" && args[2] == "-g" && strings.HasPrefix(args[3], "@openai/codex@") {
				if args[3] != "@openai/codex@"+codex.TestedVersions {
					return fmt.Errorf("the recipe installs %s; hub is tested with codex %s", args[3], codex.TestedVersions)
				}
				return nil
			}
			return next(ctx, args)
		}
	}
	for i, step := range job.steps {
		step = strings.ReplaceAll(step, releaseURL, os.Getenv("HUB_RECIPE_URL"))
		file, err := syntax.NewParser().Parse(strings.NewReader("set -eo pipefail\n"+step), fmt.Sprintf("step %d", i+1))
		if err != nil {
			t.Fatalf("%s step %d does not parse: %v", job.name, i+1, err)
		}
		r, err := interp.New(interp.Env(expand.ListEnviron(env...)), interp.Dir(workdir), interp.StdIO(nil, stdout, stderr), interp.ExecHandlers(npm))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(ctx, file); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
		if data, err := os.ReadFile(ghPath); err == nil { // GitHub puts each line in front of PATH for later steps
			env = withPath(env, strings.Fields(string(data)))
		}
	}
	return nil
}

// withPath puts dirs in front of env's PATH, the last added first.
func withPath(env, dirs []string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			d := slices.Clone(dirs)
			slices.Reverse(d)
			out[i] = "PATH=" + strings.Join(append(d, p), string(os.PathListSeparator))
		}
	}
	return out
}

// The README's CI recipes, run as written with mvdan.cc/sh: each job
// downloads and checks the release archive (served locally), installs hub,
// logs codex in and runs the review against codex on the mock LLM, which
// sees the schema. A valid review passes the job with the JSON in
// review-result.json; an answer invalid twice fails it with exit 10.
func TestCIRecipes_RunAsWritten(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the recipes install the linux amd64 archive")
	}
	codexBin := e2eCLI(t, "codex", "codex")
	schema, jobs := ciRecipes(t)
	cases := []struct {
		name    string
		answers []string
		exit    uint8
		result  string
	}{
		{name: "valid review", answers: []string{`{"verdict":"approve","problems":[]}`}, result: `{"verdict":"approve","problems":[]}` + "\n"},
		{name: "invalid twice", answers: []string{"Looks good to me.", `{"verdict":"approve"}`}, exit: 10},
	}
	for _, job := range jobs {
		for _, tc := range cases {
			t.Run(job.name+"/"+tc.name, func(t *testing.T) {
				srv := hubArchive(t, job.env["HUB_VERSION"])
				t.Setenv("HUB_RECIPE_URL", srv.URL)
				var turns []mockllm.ResponsesTurn
				for _, a := range tc.answers {
					turns = append(turns, mockllm.ResponsesTurn{Text: a})
				}
				mock := mockllm.NewResponsesServer(turns...)
				defer mock.Close()
				home, codexHome, workdir := t.TempDir(), t.TempDir(), t.TempDir()
				if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(mock.CodexConfig("mock-model", "MOCK_API_KEY")), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(workdir, "review.json"), []byte(schema), 0o644); err != nil {
					t.Fatal(err)
				}
				tag := fmt.Sprintf("recipe-%d-%d", os.Getpid(), time.Now().UnixNano())
				env := e2eEnv(home, tag, []string{"CODEX_HOME=" + codexHome, "MOCK_API_KEY=sk-mock", "OPENAI_API_KEY=sk-mock"})
				env = withPath(env, []string{filepath.Dir(codexBin)})
				var stdout, stderr bytes.Buffer
				err := runJob(t, job, workdir, env, &stdout, &stderr)
				var status interp.ExitStatus
				switch {
				case tc.exit == 0 && err != nil, tc.exit != 0 && (!errors.As(err, &status) || uint8(status) != tc.exit):
					t.Fatalf("job: %v, want exit %d\nstdout:\n%s\nstderr:\n%s", err, tc.exit, stdout.String(), e2eTail(stderr.String(), 40))
				}
				got, _ := os.ReadFile(filepath.Join(workdir, "review-result.json"))
				if tc.result != "" && string(got) != tc.result {
					t.Errorf("review-result.json %q, want %q", got, tc.result)
				}
				if tc.exit == 10 && !strings.Contains(stderr.String(), "does not match --output-schema") {
					t.Errorf("the failed job does not say why:\n%s", e2eTail(stderr.String(), 20))
				}
				reqs := mock.Requests()
				if len(reqs) != len(tc.answers) || !strings.Contains(string(reqs[0].Body), `"json_schema"`) || !strings.Contains(string(reqs[0].Body), "request_changes") {
					t.Errorf("%d model requests; the first does not carry the schema: %.600s", len(reqs), reqs[0].Body)
				}
				runNoLeftovers(t, tag)
			})
		}
	}
}
