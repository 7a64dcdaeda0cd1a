package gemini

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/hubdev/hub/internal/safefile"
)

// gemini 0.61's ACP bridge reports the output of a command run in its default pty as no
// content at all, so the editor never sees it; the plain child_process shell reports it
// as text. A system defaults file could change the default, but gemini reads it only when
// root owns it and every directory above it, which a file hub writes never is. So hub
// sets GEMINI_PTY_INFO=child_process (gemini's own "no pty available" switch) unless a
// settings file gemini reads sets tools.shell.enableInteractiveShell: that choice wins.
const ptyInfoEnv = "GEMINI_PTY_INFO"

// OptionPlainShell is the [agents.gemini.options] key that, set to false, keeps gemini's
// default interactive (pty) shell.
const OptionPlainShell = "plain_shell"

// plainShellEnv returns opts.Env with gemini's pty turned off, and a reason when it
// leaves the shell alone instead. env is the environment gemini will get.
func plainShellEnv(optsEnv map[string]string, env []string, cwd string) (map[string]string, string) {
	vals := envMap(env)
	if v, ok := vals[ptyInfoEnv]; ok {
		return optsEnv, ptyInfoEnv + "=" + v + " is set"
	}
	if f := shellSettingFile(vals, cwd); f != "" {
		return optsEnv, f + " sets tools.shell.enableInteractiveShell"
	}
	return merge(optsEnv, map[string]string{ptyInfoEnv: "child_process"}), ""
}

// shellSettingFile returns the first settings file gemini reads for cwd that sets
// tools.shell.enableInteractiveShell.
func shellSettingFile(env map[string]string, cwd string) string {
	files := settingsFiles(env, cwd)
	if i := slices.IndexFunc(files, setsInteractiveShell); i >= 0 {
		return files[i]
	}
	return ""
}

// settingsFiles lists gemini's settings layers as gemini 0.61's loadSettings finds them.
func settingsFiles(env map[string]string, cwd string) []string {
	system := cmp.Or(env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"], filepath.Join(systemConfigDir(), "settings.json"))
	defaults := cmp.Or(env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"], filepath.Join(filepath.Dir(system), "system-defaults.json"))
	files := []string{defaults, filepath.Join(homeOf(env), ".gemini", "settings.json")}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".gemini", "settings.json"))
	}
	return append(files, system)
}

func systemConfigDir() string {
	dirs := map[string]string{"darwin": "/Library/Application Support/GeminiCli", "windows": `C:\ProgramData\gemini-cli`}
	return cmp.Or(dirs[runtime.GOOS], "/etc/gemini-cli")
}

// setsInteractiveShell reports whether the settings file at path (JSON with comments)
// gives tools.shell.enableInteractiveShell a value.
func setsInteractiveShell(path string) bool {
	data, err := safefile.Read(path, 1<<20) // the workspace's is the repository's: never a FIFO or device
	if err != nil {
		return false
	}
	var s struct {
		Tools struct {
			Shell struct {
				EnableInteractiveShell json.RawMessage `json:"enableInteractiveShell"`
			} `json:"shell"`
		} `json:"tools"`
	}
	if json.Unmarshal(stripJSONComments(data), &s) != nil {
		return false
	}
	v := string(s.Tools.Shell.EnableInteractiveShell)
	return v != "" && v != "null"
}

// stripJSONComments blanks // and /* */ comments outside strings, as gemini's
// strip-json-comments does.
func stripJSONComments(b []byte) []byte {
	return jsonStringOrComment.ReplaceAllFunc(b, func(m []byte) []byte {
		switch {
		case m[0] == '"':
			return m
		case len(m) >= 4 && bytes.HasPrefix(m, []byte("/*")) && bytes.HasSuffix(m, []byte("*/")):
			return []byte(" ")
		}
		return nil // a line comment (its newline is kept) or an unterminated one
	})
}

// jsonStringOrComment is a string (its end may be missing), a line comment, a block
// comment, or an unterminated block comment.
var jsonStringOrComment = regexp.MustCompile(`"(?:[^"\\]|\\[\s\S])*"?|//[^\n]*|/\*[\s\S]*?\*/|/\*[\s\S]*`)

// envMap reads an exec-style environment; the last assignment wins.
func envMap(env []string) map[string]string {
	vals := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vals[k] = v
		}
	}
	return vals
}

// homeOf is the directory gemini keeps .gemini under.
func homeOf(env map[string]string) string {
	h, _ := os.UserHomeDir()
	return cmp.Or(env["GEMINI_CLI_HOME"], env["HOME"], h)
}
