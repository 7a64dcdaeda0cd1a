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
