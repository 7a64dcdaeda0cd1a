package gemini

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

var ErrChatFile = errors.New("gemini chat file")

// MoveAsideChat renames the chat file of sessionID that gemini would append to if it
// loaded the session at now; it returns the new path, or "" when no file is in the way.
// gemini 0.61's session/load starts recording the loaded id before it looks the session
// up, appending to chats/session-<UTC minute>-<id[:8]>.jsonl; within the minute the
// session was created that is the session's own file, whose history the appended record
// replaces for good. The new name is one gemini still lists but never writes to.
func MoveAsideChat(home, sessionID string, now time.Time) (string, error) {
	if !chatIDStart.MatchString(sessionID) {
		return "", nil
	}
	short := sessionID[:8]
	stamp := now.UTC().Format("2006-01-02T15-04") // Date.toISOString() minute, ':' -> '-'
	name := "session-" + stamp + "-" + short + ".jsonl"
	matches, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", name))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrChatFile, err)
	}
	for _, path := range matches {
		if chatSessionID(path) != sessionID {
			continue
		}
		dst := filepath.Join(filepath.Dir(path), "session-"+stamp+"-hub-"+short+".jsonl")
		if err := os.Link(path, dst); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue // moved before; path only holds an earlier load's preamble
			}
			return "", fmt.Errorf("%w: keep %s: %w", ErrChatFile, path, err)
		}
		if err := os.Remove(path); err != nil {
			return "", fmt.Errorf("%w: move %s: %w", ErrChatFile, path, err)
		}
		return dst, nil
	}
	return "", nil
}

// chatIDStart is the start of an id gemini names chat files after unchanged.
var chatIDStart = regexp.MustCompile(`^[a-zA-Z0-9]{8}`)

func chatSessionID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	var meta struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(line, &meta)
	return meta.SessionID
}

// stateHome is the directory gemini keeps .gemini under for env.
func stateHome(env []string) string { return homeOf(envMap(env)) }
