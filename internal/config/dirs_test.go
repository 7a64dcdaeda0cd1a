package config

import (
	"path/filepath"
	"testing"
)

func TestDirsFor_FollowsEachOSAndHonoursXDG(t *testing.T) {
	j := filepath.Join
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want Dirs
	}{
		{"linux defaults", "linux", nil, Dirs{j("/h", ".config", "hub"), j("/h", ".local", "state", "hub"), j("/h", ".cache", "hub")}},
		{"macOS defaults", "darwin", nil, Dirs{
			j("/h", "Library", "Application Support", "hub"), j("/h", "Library", "Application Support", "hub", "state"), j("/h", "Library", "Caches", "hub")}},
		{"windows from APPDATA and LOCALAPPDATA", "windows", map[string]string{"APPDATA": "/r", "LOCALAPPDATA": "/l"},
			Dirs{j("/r", "hub"), j("/l", "hub", "state"), j("/l", "hub", "cache")}},
		{"windows without the variables", "windows", nil,
			Dirs{j("/h", "AppData", "Roaming", "hub"), j("/h", "AppData", "Local", "hub", "state"), j("/h", "AppData", "Local", "hub", "cache")}},
		{"XDG wins on macOS", "darwin", map[string]string{"XDG_CONFIG_HOME": "/x/c", "XDG_STATE_HOME": "/x/s", "XDG_CACHE_HOME": "/x/k"},
			Dirs{j("/x/c", "hub"), j("/x/s", "hub"), j("/x/k", "hub")}},
		{"XDG wins on Windows, one at a time", "windows", map[string]string{"XDG_CONFIG_HOME": "/x/c", "LOCALAPPDATA": "/l"},
			Dirs{j("/x/c", "hub"), j("/l", "hub", "state"), j("/l", "hub", "cache")}},
		{"XDG on linux", "linux", map[string]string{"XDG_STATE_HOME": "/x/s"},
			Dirs{j("/h", ".config", "hub"), j("/x/s", "hub"), j("/h", ".cache", "hub")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dirsFor(tt.goos, func(k string) string { return tt.env[k] }, "/h")
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
