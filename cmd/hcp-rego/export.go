package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/export"
	"github.com/hcp-rego/hcp-rego/internal/matrix"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

type exportOptions struct {
	packFlags
	harness string
	subject string
	server  string
	output  string
	tenant  string
}

func newExportCommand(s streams) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export --harness claude-code|codex|opencode|gemini|cursor --subject S [--tenant T] [--server NAME] [-o FILE] PACK_DIR... --grants FILE...",
		Short: "Write one harness's permission file for one subject",
		Long: `Export writes one harness's permission file for one subject, from that
subject's column of the matrix in mode ask, following HCP's "Permission
policy export" document cell by cell. Every command is an MCP tool of
server --server (default "hcp") named by its verb key; triggers are not
tools.

  claude-code  settings.json permissions.allow/ask/deny of mcp__<server>__<tool>
  codex        config.toml [mcp_servers.<server>] enabled_tools, disabled_tools,
               tools."<tool>".approval_mode auto|prompt
  opencode     permissions (v2) rules: action <server>_<tool>, resource *, effect
  gemini       policy [[rule]]s: mcpName, toolName, decision allow|ask_user|deny, priority 100
  cursor       permissions.json mcpAllowlist of <server>:<tool>

Claude Code's and OpenCode's names are written as those harnesses register
them: every character outside [A-Za-z0-9_-] in <server> and <tool> becomes
_ (documents.search is mcp__hub__documents_search, hub_documents_search).

What a harness cannot express (allow of a write tool in codex, deny in
cursor, a tool whose registered name another tool also gets or which is
over 64 characters in claude-code and opencode) is left unwritten and named
in a note on stderr; what it expresses only in part (gemini's ask_user, a
deny in a non-interactive run; cursor's ask, an omission that asks only in
the Allowlist run mode) is written and noted. Ask is never written as
allow. The file goes to stdout, or with -o
to FILE through a temporary file and a rename: on any error nothing is
written. FILE must not be an input, nor lie inside a pack folder read.`,
		Example: `  hcp-rego export --harness claude-code --subject role:member testdata/seed004 --grants testdata/seed004/grants.json
  hcp-rego export --harness codex --subject role:dev --tenant acme --server hub -o codex.toml \
    testdata/packs --grants testdata/grants/acme.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.packs = args
			return runExport(cmd.Context(), s, o)
		},
	}
	addPackFlags(cmd.Flags(), &o.packFlags)
	cmd.Flags().StringVar(&o.harness, "harness", "", "claude-code, codex, opencode, gemini or cursor (required)")
	cmd.Flags().StringVar(&o.subject, "subject", "", "the subject: principal:ID, role:NAME or default (required)")
	cmd.Flags().StringVar(&o.server, "server", export.DefaultServer, "the MCP server name")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "the file to write (default stdout)")
	cmd.Flags().StringVar(&o.tenant, "tenant", "", "the principal's tenant (default none)")
	emptyHint(cmd, "tenant", "leave it out for a principal with no tenant")
	_ = cmd.MarkFlagRequired("harness")
	_ = cmd.MarkFlagRequired("subject")
	_ = cmd.MarkFlagRequired("grants")
	return cmd
}

func runExport(ctx context.Context, s streams, o exportOptions) error {
	h, err := export.ParseHarness(o.harness)
	if err != nil {
		return badInput(fmt.Errorf("--harness: %w", err))
	}
	if err := export.CheckServer(o.server); err != nil {
		return badInput(fmt.Errorf("--server: %w", err))
	}
	m, err := o.checked()
	if err != nil {
		return badInput(err)
	}
	if err := bundles.CheckOutput(o.output, m.Inputs()); err != nil {
		return badInput(err)
	}
	if _, err := pickSubjects(matrix.Subjects(m), []string{o.subject}); err != nil {
		return badInput(err)
	}
	if tenants := matrix.OnlyForTenants(m, o.subject); o.tenant == "" && tenants != nil {
		return badInput(fmt.Errorf("--subject %s: every grant of it holds only for tenant %s, so without --tenant the file would give it nothing; give --tenant %s",
			printable.Quote(o.subject), quotedList(tenants), printable.Quote(tenants[0])))
	}
	mx, err := matrix.Compute(ctx, m, matrix.Options{Mode: matrix.ModeAsk, Tenant: o.tenant, Subjects: []string{o.subject}})
	if err != nil {
		return badInput(err)
	}
	f, err := export.Export(mx, o.subject, h, o.server)
	if err != nil {
		return badInput(err)
	}
	if o.output == "" {
		_, err = s.out.Write(f.Data)
	} else {
		err = bundles.WriteFileAtomic(o.output, f.Data)
	}
	if err != nil {
		return badInput(err)
	}
	writeTenantNotes(s.err, m, o.tenant)
	writeAnomalies(s.err, mx)
	for _, n := range f.Notes {
		fmt.Fprintln(s.err, n)
	}
	return nil
}

// quotedList is names, each quoted, joined with commas and "or".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
