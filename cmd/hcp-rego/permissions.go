package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/printable"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// permissionsOptions are eval's, but for the output format.
type permissionsOptions struct {
	evalOptions
}

func newPermissionsCommand(s streams) *cobra.Command {
	var o permissionsOptions
	cmd := &cobra.Command{
		Use:   "permissions (PACK_DIR... [--grants FILE]... | --bundle FILE) --input FILE|-",
		Short: "List what a principal may do in a pack, as one query",
		Long: `Permissions prints, for the input's principal, land facts, mode and
reachability, every command and trigger of the input's pack with the
decision a call of it with no args, confirm, apply or allow rule would get:
its disposition (allow, ask or deny), code, capability, source and reasons.
It asks the library's data.hcp.authz.permissions, as an operator's console
asks a sidecar (docs/permissions.md). The input is a decision input without
verb_key or stimulus. It is for operators: the agent is never told its
permissions, and a runtime must not pass the listing on to it.

--bundle, --verification-key, --max-bundle-bytes and --ext read the policy
as eval reads it. --format json (the default) prints the listing document;
table, one line a command or trigger. Any listing exits 0, an
invalid_input or unknown_pack one too; a bad file exits 2.`,
		Example: `  echo '{"principal":{"id":"bob","roles":["member"]},"pack_id":"ledger","owner":"bob"}' |
    hcp-rego permissions testdata/packs --grants testdata/grants/acme.json --input - --format table
  hcp-rego permissions --bundle hcp.tar.gz --verification-key testdata/keys/rsa.pub --ext testdata/ext \
    --input testdata/inputs/listing.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.policy.packs = args
			return runPermissions(cmd.Context(), s, o)
		},
	}
	addPolicyFlags(cmd, &o.policy, "list with this bundle (.tar.gz or folder) instead of packs; repeatable: a sharded build's policy bundle and shards, or its folder")
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "the listing input, a JSON file or - for stdin (required)")
	f.StringVar(&o.format, "format", "json", "output format: json or table")
	f.StringArrayVar(&o.ext, "ext", nil, "load a runtime's hcp.ext rules: a .rego file or a folder of them (repeatable)")
	_ = cmd.MarkFlagRequired("input")
	return cmd
}

func runPermissions(ctx context.Context, s streams, o permissionsOptions) error {
	if o.format != "json" && o.format != "table" {
		return badInput(fmt.Errorf("--format %q: want json or table", o.format))
	}
	if err := o.check(); err != nil {
		return badInput(err)
	}
	in, err := o.read(ctx, s.in)
	if err != nil {
		return err
	}
	noteUnverified(s.err, in.policy)
	ev, err := in.policy.Evaluator(ctx)
	if err != nil {
		return badInput(err)
	}
	p, err := ev.Permissions(ctx, in.input.value)
	if err != nil {
		return err
	}
	if o.format == "table" {
		return writePermissionsTable(s.out, p)
	}
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(p.Doc)
}

// writePermissionsTable writes a listing as a table aligned for a
// terminal: a line naming the pack and the listing's code, then a header
// and one line a command or trigger, sorted by kind and key.
func writePermissionsTable(w io.Writer, p *hcprego.Permissions) error {
	switch p.Code {
	case "ok":
	case "unknown_pack":
		_, err := fmt.Fprintf(w, "unknown_pack: no pack of the policy has the pack_id %s\n", strconv.Quote(p.PackID))
		return err
	default:
		return writeInvalidListing(w, p)
	}
	lines := [][]string{{"KIND", "KEY", "DISPOSITION", "CODE", "CAPABILITY", "ROW", "GRANT", "REASONS"}}
	lines = append(lines, permissionLines("verb", p.Verbs)...)
	lines = append(lines, permissionLines("stimulus", p.Stimuli)...)
	if _, err := fmt.Fprintf(w, "pack %s: %s, %s\n", printable.Quote(p.PackID), count(len(p.Verbs), "command"), count(len(p.Stimuli), "trigger")); err != nil {
		return err
	}
	return writeAligned(w, lines)
}

// writeInvalidListing writes what is wrong with a listing's input, a
// reason a line, indented.
func writeInvalidListing(w io.Writer, p *hcprego.Permissions) error {
	if _, err := fmt.Fprintf(w, "%s: the input is not a well-formed listing input (a decision input without its key, within the listing's bounds):\n", printable.LineStart(p.Code)); err != nil {
		return err
	}
	for _, r := range p.Reasons {
		if _, err := fmt.Fprintf(w, "  %s\n", printable.Quote(fmt.Sprint(r))); err != nil {
			return err
		}
	}
	return nil
}

// permissionLines are a table's lines for the entries of one kind, by key,
// every cell printable.
func permissionLines(kind string, entries map[string]hcprego.Permission) [][]string {
	var lines [][]string
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		e := entries[key]
		reasons := make([]string, len(e.Reasons))
		for i, r := range e.Reasons {
			reasons[i] = fmt.Sprint(r)
		}
		line := []string{kind, key, e.Disposition, e.Code, e.Capability, e.SourceRow, cmp.Or(e.SourceGrant, "-"), cmp.Or(strings.Join(reasons, "; "), "-")}
		for i := range line {
			line[i] = printable.Quote(line[i])
		}
		lines = append(lines, line)
	}
	return lines
}

// writeAligned writes lines as columns two spaces apart.
func writeAligned(w io.Writer, lines [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, line := range lines {
		fmt.Fprintln(tw, strings.Join(line, "\t"))
	}
	return tw.Flush()
}

// count is n things, in the plural unless n is 1.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
