package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestHold_SecondHolderFailsUntilReleased(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locks", "s.lock")
	release, err := Hold(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Hold(p); !errors.Is(err, ErrLocked) {
		t.Fatalf("second hold: %v, want ErrLocked", err)
	}
	release()
	again, err := Hold(p)
	if err != nil {
		t.Fatalf("hold after release: %v", err)
	}
	again()
}

// A lock file a dead process left (its pid written, no lock held) is taken.
func TestHold_TakesOverADeadHoldersFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.lock")
	if err := os.WriteFile(p, []byte("999999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	release, err := Hold(p)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	release()
}

// A lock file that is a link (one planted in the state dir) leads Hold to
// no other file: the file it names is neither truncated nor written.
func TestHold_LinkedLockFileLeftAlone(t *testing.T) {
	tests := []struct {
		name string
		link func(victim, p string) error
	}{
		{name: "symbolic link", link: os.Symlink},
		{name: "hard link", link: os.Link},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			victim, p := filepath.Join(dir, "victim"), filepath.Join(dir, "s.lock")
			if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := tt.link(victim, p)
			vi, _ := os.Stat(victim)
			if pi, serr := os.Stat(p); err != nil || serr != nil || !os.SameFile(vi, pi) {
				t.Skip("no such links here:", err, serr) // Wine's symlink is a stub that makes none
			}
			if release, err := Hold(p); err == nil {
				release()
				t.Error("a linked lock file was held")
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me\n" {
				t.Fatalf("the linked file holds %q (%v): want it untouched", b, err)
			}
		})
	}
}
