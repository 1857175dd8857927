package export

import (
	"fmt"
	"strings"
)

// Seed 004 asks that what is written be compared with what the harness
// does when the adapter is delivered. The names are written as each
// harness registers them (names.go); the notes here carry the rest of what
// that comparison found (docs/matrix.md): values whose
// effect the harness leaves to something outside the file.

// codexAutoNote notes that approval_mode "auto" leaves the prompt to the
// server: Codex asks for a tool whose annotations do not mark it
// read-only, so an allowed tool may still ask (never the other way).
func codexAutoNote(auto []string) []Note {
	if len(auto) == 0 {
		return nil
	}
	return []Note{{Harness: Codex, Text: `approval_mode = "auto" leaves the prompt to the server's tool annotations: ` +
		"Codex asks for a tool the server does not mark read-only (readOnlyHint), so these allowed tools may still ask: " + strings.Join(auto, ", ")}}
}

// geminiServerNote notes a server name holding "_", with which Gemini
// CLI's documentation says policy rules can fail to match.
func geminiServerNote(server string) []Note {
	if !strings.Contains(server, "_") {
		return nil
	}
	return []Note{{Harness: Gemini, Text: fmt.Sprintf(
		"the server name %q holds _, and Gemini CLI's documentation warns that policy rules for such a server can fail to match: prefer a --server without _", server)}}
}
