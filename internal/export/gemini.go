package export

import (
	"github.com/hcp-rego/hcp-rego/internal/matrix"
)

// GeminiPriority is every rule's priority: the user tier's 100, above the
// built-in defaults.
const GeminiPriority = 100

// geminiPolicy is a Gemini CLI policy file (~/.gemini/policies/*.toml):
// one [[rule]] a tool.
type geminiPolicy struct {
	Rule []geminiRule `toml:"rule,omitempty"`
}

type geminiRule struct {
	MCPName  string `toml:"mcpName"`
	ToolName string `toml:"toolName"`
	Decision string `toml:"decision"`
	Priority int    `toml:"priority"`
}

// geminiUnwritten is what decides for a tool that the file leaves out.
const geminiUnwritten = "Gemini CLI's default policies decide for it (an interactive session asks)"

// writeGemini writes one rule a tool, in matrix order, except one whose
// name Gemini CLI cannot tell apart or keeps only shortened (GeminiName):
// that one is left out and noted. Ask is written as ask_user, which a
// non-interactive run treats as deny: written, and noted.
func writeGemini(server string, tools, left []Tool) (*File, error) {
	var p geminiPolicy
	kept, notes := registered(Gemini, server, tools, left, GeminiName, MaxGeminiName, geminiUnwritten)
	for _, rt := range kept {
		t := rt.Tool
		decision := "deny"
		switch t.Disposition {
		case matrix.Allow:
			decision = "allow"
		case matrix.Ask:
			decision = "ask_user"
			notes = append(notes, Note{Harness: Gemini, Tool: t.Name,
				Text: `ask is written as decision = "ask_user", which a non-interactive run treats as deny`})
		}
		p.Rule = append(p.Rule, geminiRule{MCPName: server, ToolName: t.Name, Decision: decision, Priority: GeminiPriority})
	}
	data, err := encodeTOML(p)
	if err != nil {
		return nil, err
	}
	return &File{Data: data, Notes: append(notes, geminiServerNote(server)...)}, nil
}
