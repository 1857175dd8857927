package reference

import (
	"strings"

	"github.com/hcp-rego/hcp-rego/compile"
)

// preview is what a confirm_required decision shows the user
// (docs/decisions.md item 9): the key, the call's args as given ({} when
// absent), and the filled cli template when the command has one.
func preview(c *call, row *compile.Row) map[string]any {
	args := c.args
	if args == nil {
		args = map[string]any{}
	}
	p := map[string]any{"command": c.key, "args": args}
	if row.CLI != nil {
		p["cli"] = renderCLI(row.CLI, c.args)
	}
	return p
}

// renderCLI fills a cli template with the call's arguments. A placeholder
// whose argument is absent is dropped, with the token before it when that
// token is a --flag. --confirm is appended when the template takes neither
// --confirm nor --apply.
func renderCLI(template []string, args map[string]any) string {
	out := make([]string, 0, len(template)+1)
	takesConfirm := false
	for i, token := range template {
		takesConfirm = takesConfirm || token == "--confirm" || token == "--apply"
		name, isPlaceholder := placeholder(token)
		if !isPlaceholder {
			out = append(out, token)
			continue
		}
		value, given := args[name]
		if given {
			out = append(out, shellQuote(argText(value)))
			continue
		}
		if i > 0 && strings.HasPrefix(template[i-1], "--") {
			out = out[:len(out)-1]
		}
	}
	if !takesConfirm {
		out = append(out, "--confirm")
	}
	return strings.Join(out, " ")
}

// placeholder reports whether a token is exactly {name}, with a non-empty
// name holding no brace, and returns the name.
func placeholder(token string) (string, bool) {
	inner, ok := strings.CutPrefix(token, "{")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(inner, "}")
	if !ok || name == "" || strings.ContainsAny(name, "{}") {
		return "", false
	}
	return name, true
}

// argText is an argument's value as the command line shows it: a string
// as is, anything else as its compact JSON.
func argText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

// shellQuote single-quotes s when it is empty or holds any character
// outside [A-Za-z0-9._/:@%+=,-], writing ' inside as '\”.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, needsQuote) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func needsQuote(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("._/:@%+=,-", r)
}
