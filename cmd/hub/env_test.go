package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command loads the config once: a help word that turns out not to ask
// for help (a flag's value, a word after "--") or that does logs the
// config's warnings once, not once for the flag sets and again to run.
func TestRealMain_ConfigLoadedOnce(t *testing.T) {
	for _, args := range [][]string{{"run", "--agent", "-h", "hi"}, {"run", "--agent", "replay", "--", "-h"}, {"run", "--help"}, {"doctor"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			root := isolate(t)
			addUserConfig(t, root, "warned_key_xyz = 1\n")
			log := filepath.Join(root, "hub.log")
			hub(t, nil, append([]string{"--log-file", log}, args...)...)
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), "warned_key_xyz"); n != 1 {
				t.Errorf("the config's warning about its unknown key was logged %d times, want once:\n%s", n, data)
			}
		})
	}
}

// hub help NAME is hub NAME --help: the same text and exit code, and the
// help of version (and of help) needs no config.
func TestRealMain_HelpNameIsNameHelp(t *testing.T) {
	root := isolate(t)
	addUserConfig(t, root, "warned_key_xyz = 1\n")
	for _, name := range visibleCommands() {
		log := filepath.Join(root, name+".log")
		code, out, errOut := hub(t, nil, "--log-file", log, "help", name)
		if name != "help" { // hub help --help is hub --help
			wantCode, wantOut, wantErr := hub(t, nil, name, "--help")
			if code != wantCode || out != wantOut || errOut != wantErr || code != exitOK {
				t.Errorf("hub help %s: exit %d, stdout %q, stderr %q; hub %s --help: exit %d, stdout %q, stderr %q",
					name, code, out, errOut, name, wantCode, wantOut, wantErr)
			}
		}
		if data, _ := os.ReadFile(log); (name == "version" || name == "help") && len(data) > 0 {
			t.Errorf("hub help %s loaded the config: %s", name, data)
		}
	}
}
