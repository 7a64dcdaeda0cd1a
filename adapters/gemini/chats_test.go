package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

const chatsTestID = "5bb64afb-4542-45c5-afa0-6592a252eaec"

var chatsTestNow = time.Date(2026, 11, 22, 2, 27, 58, 0, time.UTC)

// chatsWrite writes a chat file named name under home's project "proj" and
// returns its path.
func chatsWrite(t *testing.T, home, name, sessionID string) string {
	t.Helper()
	dir := filepath.Join(home, ".gemini", "tmp", "proj", "chats")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	body := `{"sessionId":"` + sessionID + `","projectHash":"h","kind":"main"}` + "\n" + `{"id":"1","type":"user","content":[{"text":"first"}]}` + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMoveAsideChat_OnlySameMinuteSameSession(t *testing.T) {
	tests := []struct {
		name, file, fileID, id string
		preexisting            string // a file already at the aside name
		wantMoved              bool
	}{
		{"created this minute", "session-2026-11-22T02-27-5bb64afb.jsonl", chatsTestID, chatsTestID, "", true},
		{"created an earlier minute", "session-2026-11-22T02-26-5bb64afb.jsonl", chatsTestID, chatsTestID, "", false},
		{"other session with the same prefix", "session-2026-11-22T02-27-5bb64afb.jsonl", "5bb64afb-other", chatsTestID, "", false},
		{"moved before", "session-2026-11-22T02-27-5bb64afb.jsonl", chatsTestID, chatsTestID, "session-2026-11-22T02-27-hub-5bb64afb.jsonl", false},
		{"id gemini would not name a file after", "session-2026-11-22T02-27-../x.jsonl", chatsTestID, "../x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			src := filepath.Join(home, ".gemini", "tmp", "proj", "chats", tt.file)
			if !strings.Contains(tt.file, "/") {
				src = chatsWrite(t, home, tt.file, tt.fileID)
			}
			if tt.preexisting != "" {
				chatsWrite(t, home, tt.preexisting, tt.fileID)
			}
			moved, err := MoveAsideChat(home, tt.id, chatsTestNow)
			if err != nil {
				t.Fatal(err)
			}
			_, srcErr := os.Stat(src)
			if !tt.wantMoved {
				if moved != "" {
					t.Fatalf("moved to %s, want untouched", moved)
				}
				return
			}
			if want := filepath.Join(filepath.Dir(src), "session-2026-11-22T02-27-hub-5bb64afb.jsonl"); moved != want {
				t.Fatalf("moved = %q, want %q", moved, want)
			}
			if !os.IsNotExist(srcErr) {
				t.Fatalf("original name still present (stat err %v): gemini would append to it", srcErr)
			}
			if got := chatSessionID(moved); got != tt.id {
				t.Fatalf("moved file's sessionId = %q", got)
			}
		})
	}
}

func TestStateHome_Precedence(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{"gemini cli home wins", []string{"HOME=/h", "GEMINI_CLI_HOME=/g"}, "/g"},
		{"last HOME wins", []string{"HOME=/old", "HOME=/new"}, "/new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stateHome(tt.env); got != tt.want {
				t.Fatalf("stateHome = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBeforeLoad_UsesEnvHomeAndClock(t *testing.T) {
	home := t.TempDir()
	src := chatsWrite(t, home, "session-2026-11-22T02-27-5bb64afb.jsonl", chatsTestID)
	hook := beforeLoad(zerolog.Nop(), func() time.Time { return chatsTestNow })
	if err := hook(chatsTestID, []string{"HOME=" + home}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Fatalf("chat file not moved aside (stat err %v)", err)
	}
}
