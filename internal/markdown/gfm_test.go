package markdown

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// TestCodeInGFMTable renders a table row of each text as Code writes it
// with goldmark, a GFM implementation, raw HTML allowed as GitHub allows
// <code>: the row keeps its two cells, and the first shows the text as it
// is. Renderers differ on a pipe after an escaped backslash ("\\|"):
// goldmark and cmark-gfm read the pipe as escaped, marked splits the cell
// there, so that a key could push its row's real change out of the table.
// Code writes no such pipe, for any renderer.
func TestCodeInGFMTable(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.Table), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	cell := regexp.MustCompile(`(?s)<td>(.*?)</td>`)
	tag := regexp.MustCompile(`<[^>]*>`)
	for _, in := range []string{
		"mail.send", "a|b", `pay\| allow → deny`, `a\\|b`, `a\\\|b`, `x\`, `\|`,
		"a*b*c", "a`b", "<b>bold</b>", "&amp;", "[link](x)", "",
	} {
		if strings.Contains(Code(in), `\\|`) {
			t.Errorf("Code(%q) = %q: a pipe after an escaped backslash splits the cell in some renderers", in, Code(in))
		}
		var out bytes.Buffer
		row := "| key | change |\n| --- | --- |\n| " + Code(in) + " | deny → allow |\n"
		if err := md.Convert([]byte(row), &out); err != nil {
			t.Fatal(err)
		}
		cells := cell.FindAllStringSubmatch(out.String(), -1)
		if len(cells) != 2 || cells[1][1] != "deny → allow" {
			t.Errorf("Code(%q): the row renders as %q, want two cells, the second the change", in, out.String())
			continue
		}
		shown := html.UnescapeString(tag.ReplaceAllString(cells[0][1], ""))
		if strings.TrimSpace(shown) != in {
			t.Errorf("Code(%q) shows %q", in, shown)
		}
	}
}
