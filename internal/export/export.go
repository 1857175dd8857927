// Package export writes one harness's permission file for one subject from
// a matrix (docs/matrix.md), following seed 004 cell by cell: Claude
// Code's settings.json permissions, Codex's config.toml mcp_servers table,
// OpenCode's v2 permissions array, Gemini CLI's policy [[rule]]s and
// Cursor's permissions.json mcpAllowlist. Each command of the packs is an
// MCP tool named by its verb key on one server; triggers are not tools.
// What a harness cannot express is left unwritten and named in a Note, and
// what it expresses only in part is written and noted; nothing is ever
// written more permissively than the matrix says (ask never becomes
// allow).
package export

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hcp-rego/hcp-rego/internal/matrix"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// Harness names a harness whose permission file export writes.
type Harness string

// The harnesses of seed 004.
const (
	ClaudeCode Harness = "claude-code"
	Codex      Harness = "codex"
	OpenCode   Harness = "opencode"
	Gemini     Harness = "gemini"
	Cursor     Harness = "cursor"
)

// Harnesses lists every harness, in the order seed 004 describes them.
var Harnesses = []Harness{ClaudeCode, Codex, OpenCode, Gemini, Cursor}

// DefaultServer is the MCP server name when none is given.
const DefaultServer = "hcp"

// serverName is what a server name may be: it must survive every
// harness's tool naming (mcp__<server>__<tool>, <server>:<tool>,
// <server>_<tool>, a TOML key) unchanged and unambiguous.
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// CheckServer reports whether name can be an MCP server name here: letters,
// digits, "-" and "_", starting with a letter or digit, without "__".
func CheckServer(name string) error {
	if !serverName.MatchString(name) || strings.Contains(name, "__") {
		return fmt.Errorf("server name %q: want letters, digits, - and _ (not __), starting with a letter or digit", name)
	}
	return nil
}

// ParseHarness returns the harness named s.
func ParseHarness(s string) (Harness, error) {
	for _, h := range Harnesses {
		if string(h) == s {
			return h, nil
		}
	}
	return "", fmt.Errorf("harness %q: want claude-code, codex, opencode, gemini or cursor", s)
}

// Tool is one MCP tool of the subject's file: a command, its operation and
// the subject's disposition on it.
type Tool struct {
	Name        string // the verb key as written
	PackID      string
	Write       bool // the command's operation is write
	Disposition matrix.Disposition
}

// Note tells what a file leaves unwritten, or writes only in part.
type Note struct {
	Harness Harness
	// Tool is the MCP tool the note is about; empty for a note on the file.
	Tool string
	// Unwritten is true when the tool's disposition is not in the file at
	// all, false when it is written in part.
	Unwritten bool
	Text      string
}

// String is the note as the command prints it on stderr.
func (n Note) String() string {
	if n.Tool == "" {
		return fmt.Sprintf("note: %s: %s", n.Harness, n.Text)
	}
	return fmt.Sprintf("note: %s: %s: %s", n.Harness, printable.Quote(n.Tool), n.Text)
}

// File is one harness's permission file and its notes.
type File struct {
	Data  []byte
	Notes []Note
}

// Export writes harness h's permission file for subject, a column of mx,
// with tools on MCP server server. Triggers are named in a note.
func Export(mx *matrix.Matrix, subject string, h Harness, server string) (*File, error) {
	tools, triggers, err := ToolsOf(mx, subject)
	if err != nil {
		return nil, err
	}
	f, err := Write(h, server, tools)
	if err != nil {
		return nil, err
	}
	if len(triggers) > 0 {
		f.Notes = append(f.Notes, Note{Harness: h, Text: "triggers are not MCP tools and are not exported: " + strings.Join(triggers, ", ")})
	}
	return f, nil
}

// ToolsOf returns the subject's tools, the command rows of mx in matrix
// order, and its triggers as "pack/key". A tool name that two packs share
// is an error: one server cannot carry two tools of one name.
func ToolsOf(mx *matrix.Matrix, subject string) ([]Tool, []string, error) {
	if !slices.Contains(mx.Subjects, subject) {
		return nil, nil, fmt.Errorf("subject %q is not a column of the matrix", subject)
	}
	var tools []Tool
	var triggers []string
	packOf := map[string]string{}
	for _, r := range mx.Rows {
		if r.Kind != matrix.KindVerb {
			triggers = append(triggers, printable.Quote(r.PackID+"/"+r.Key))
			continue
		}
		if other, dup := packOf[r.Key]; dup {
			return nil, nil, fmt.Errorf("tool %q is a command of packs %q and %q: one MCP server cannot carry both; export them separately", r.Key, other, r.PackID)
		}
		packOf[r.Key] = r.PackID
		tools = append(tools, Tool{Name: r.Key, PackID: r.PackID, Write: r.Operation == "write", Disposition: r.Cells[subject]})
	}
	return tools, triggers, nil
}

// Write renders tools as harness h's permission file on MCP server server.
func Write(h Harness, server string, tools []Tool) (*File, error) {
	if err := CheckServer(server); err != nil {
		return nil, err
	}
	for _, t := range tools {
		switch t.Disposition {
		case matrix.Allow, matrix.Ask, matrix.Deny:
		default:
			return nil, fmt.Errorf("tool %q: disposition %q: want allow, ask or deny", t.Name, t.Disposition)
		}
	}
	kept, left, notes := nameable(h, tools)
	f, err := render(h, server, kept, left)
	if err != nil {
		return nil, err
	}
	f.Notes = append(notes, f.Notes...)
	return f, nil
}

// render writes tools, the tools nameable kept; left are those it left
// out, which a harness that renames tools may still register under the
// name of one kept (see registered).
func render(h Harness, server string, tools, left []Tool) (*File, error) {
	switch h {
	case ClaudeCode:
		return writeClaude(server, tools, left)
	case Codex:
		return writeCodex(server, tools)
	case OpenCode:
		return writeOpenCode(server, tools, left)
	case Gemini:
		return writeGemini(server, tools, left)
	case Cursor:
		return writeCursor(server, tools)
	}
	return nil, fmt.Errorf("harness %q: want claude-code, codex, opencode, gemini or cursor", h)
}

// toolName is what an MCP tool name should be made of (the MCP
// specification's tool names: letters, digits, _, - and ., at most 128).
// Any other character is a pattern to some harness (* and ? in OpenCode's
// and Claude Code's rules, so that one tool's rule would cover others) or
// is renamed by it (a space becomes _), so that the rule would name
// another tool or none.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// nameable splits tools into those that every harness names as written
// (kept) and the others (left), which are left unwritten and noted: seed
// 004 says not to rename a tool and pretend it is the same.
func nameable(h Harness, tools []Tool) (kept, left []Tool, notes []Note) {
	for _, t := range tools {
		if toolName.MatchString(t.Name) {
			kept = append(kept, t)
			continue
		}
		left = append(left, t)
		notes = append(notes, Note{Harness: h, Tool: t.Name, Unwritten: true,
			Text: string(t.Disposition) + " cannot be expressed: the name holds a character other than letters, digits, _, - and . (MCP tool names), which a harness would read as a pattern or rename; left unwritten"})
	}
	return kept, left, notes
}
