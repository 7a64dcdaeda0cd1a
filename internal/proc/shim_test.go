package proc

import (
	"errors"
	"slices"
	"testing"
)

const nodeShim = `@ECHO off
GOTO start
:find_dp0
SET dp0=%~dp0
EXIT /b
:start
SETLOCAL
CALL :find_dp0

IF EXIST "%dp0%\node.exe" (
  SET "_prog=%dp0%\node.exe"
) ELSE (
  SET "_prog=node"
  SET PATHEXT=%PATHEXT:;.JS;=;%
)

endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\node_modules\@anthropic-ai\claude-code\cli.js" %*
`

const exeShim = `@ECHO off
GOTO start
:find_dp0
SET dp0=%~dp0
EXIT /b
:start
SETLOCAL
CALL :find_dp0
"%dp0%\node_modules\@openai\codex\bin\codex.exe"   %*
`

func TestShimArgv_StartsWhatTheShimStarts(t *testing.T) {
	const shim = `C:\Users\a\AppData\Roaming\npm\claude.cmd`
	const dir = `C:\Users\a\AppData\Roaming\npm`
	args := []string{"-p", `say "hi" & exit`}
	tests := []struct {
		name     string
		body     string
		nodeHere bool
		nodePath string
		want     []string
		ok       bool
	}{
		{"node script, node on PATH", nodeShim, false, `C:\Program Files\nodejs\node.exe`,
			append([]string{`C:\Program Files\nodejs\node.exe`, dir + `\node_modules\@anthropic-ai\claude-code\cli.js`}, args...), true},
		{"node script, node beside the shim", nodeShim, true, "",
			append([]string{dir + `\node.exe`, dir + `\node_modules\@anthropic-ai\claude-code\cli.js`}, args...), true},
		{"native binary", exeShim, false, "",
			append([]string{dir + `\node_modules\@openai\codex\bin\codex.exe`}, args...), true},
		{"node script, no node anywhere", nodeShim, false, "", nil, false},
		{"not an npm shim", "@echo off\r\nrun.exe %*\r\n", false, "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exists := func(p string) bool { return tt.nodeHere && p == dir+`\node.exe` }
			lookPath := func(string) (string, error) {
				if tt.nodePath == "" {
					return "", errors.New("not found")
				}
				return tt.nodePath, nil
			}
			got, ok := shimArgv(shim, tt.body, args, exists, lookPath)
			if ok != tt.ok || !slices.Equal(got, tt.want) {
				t.Fatalf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
