package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/discover"
	"github.com/hcp-rego/hcp-rego/internal/matrix"
	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/printable"
	"github.com/hcp-rego/hcp-rego/internal/problem"
)

type matrixOptions struct {
	policyFlags
	subjects  []string
	mode      string
	tenant    string
	format    string
	formatSet bool
	diff      bool
}

func newMatrixCommand(s streams) *cobra.Command {
	var o matrixOptions
	cmd := &cobra.Command{
		Use:   "matrix (PACK_DIR... --grants FILE... | --bundle FILE...) [--mode ask|run] [--tenant T] [--subject S]... [--format table|markdown|json]\n  hcp-rego matrix --diff OLD_DIR NEW_DIR [--mode ask|run] [--tenant T]",
		Short: "Show who gets what: allow, ask or deny for every subject and command",
		Long: `Matrix prints, for every subject that the grant files name (then
"default") and every command and trigger of the packs, the disposition a
harness would show: allow, ask (confirm_required) or deny. Each cell is a
decision of the decision library for a principal that holds just that
subject, with every land fact satisfied and no confirm, apply or allow rule
(docs/matrix.md). --mode sets access.mode (default ask; in mode run a
confirm: true gate passes, "always" still asks); --tenant sets the
principal's tenant (without it, grants scoped to a tenant count for no cell
and a note says so); --subject (repeatable) picks columns.

--bundle (repeatable) computes the matrix of bundles as built instead: a
policy bundle and shards of its build, or a sharded build's folder, read as
eval --bundle reads them, as a cell's sidecar that loads them decides. The
subjects are those the bundles' grant tables name. With --tenant and no
shard of that tenant among them, every cell is tenant_unavailable, shown as
deny, and a note on stderr names the shard to give.

--format table (default) is aligned for a terminal, coloured when stdout is
one (NO_COLOR turns colour off); markdown is a table for a pull request
comment; json is the document docs/matrix.md shows.

--diff OLD_DIR NEW_DIR finds the packs and grant files under each folder,
computes both matrices over the subjects of both, and prints only the cells
that changed as Markdown, with the rows and subjects that appeared or went
away. It exits 0 whether or not anything changed.`,
		Example: `  hcp-rego matrix testdata/packs --grants testdata/grants/acme.json --grants testdata/grants/defaults.json
  hcp-rego matrix testdata/packs --grants testdata/grants/acme.json --tenant acme --subject role:member --format markdown
  hcp-rego build testdata/packs --grants testdata/grants/acme.json --shards 4 -o cell && hcp-rego matrix --bundle cell --tenant acme
  git worktree add ../base origin/main && hcp-rego matrix --diff ../base .`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.packs = args
			o.formatSet = cmd.Flags().Changed("format")
			if o.diff {
				return runMatrixDiff(cmd.Context(), s, o)
			}
			return runMatrix(cmd.Context(), s, o)
		},
	}
	addPolicyFlags(cmd, &o.policyFlags, "compute the matrix of this bundle (.tar.gz or folder) instead of packs; repeatable: a sharded build's policy bundle and shards, or its folder")
	cmd.Flags().StringVar(&o.mode, "mode", matrix.ModeAsk, "access.mode of every call: ask or run")
	cmd.Flags().StringVar(&o.tenant, "tenant", "", "the principals' tenant (default none)")
	emptyHint(cmd, "tenant", "leave it out for a principal with no tenant")
	cmd.Flags().StringArrayVar(&o.subjects, "subject", nil, "a subject to show: principal:ID, role:NAME or default (repeatable; default all)")
	cmd.Flags().StringVar(&o.format, "format", "table", "output format: table, markdown or json")
	cmd.Flags().BoolVar(&o.diff, "diff", false, "compare two folders, OLD_DIR NEW_DIR, and print the changed cells as Markdown")
	return cmd
}

// checkCommon checks the flags that the matrix and its diff share.
func (o matrixOptions) checkCommon() error {
	if o.mode != matrix.ModeAsk && o.mode != matrix.ModeRun {
		return fmt.Errorf("--mode %q: want ask or run", o.mode)
	}
	return nil
}

func runMatrix(ctx context.Context, s streams, o matrixOptions) error {
	if err := o.checkCommon(); err != nil {
		return badInput(err)
	}
	if err := o.checkPolicy(); err != nil {
		return badInput(err)
	}
	if !slices.Contains([]string{"table", "markdown", "json"}, o.format) {
		return badInput(fmt.Errorf("--format %q: want table, markdown or json", o.format))
	}
	mx, unavailable, err := o.compute(ctx, s.err)
	if err != nil {
		return badInput(err)
	}
	var out bytes.Buffer
	switch o.format {
	case "json":
		err = matrix.WriteJSON(&out, mx)
	case "markdown":
		err = matrix.WriteMarkdown(&out, mx)
	default:
		err = matrix.WriteTable(&out, mx, colourful(s.out))
	}
	if err != nil {
		return err
	}
	if o.format == "json" {
		// The table and Markdown show them above the table.
		for _, n := range mx.TenantNotes {
			fmt.Fprintln(s.err, n.Text())
		}
	}
	if mx.TenantUnavailable {
		fmt.Fprintln(s.err, unavailable)
	}
	writeAnomalies(s.err, mx)
	_, err = s.out.Write(out.Bytes())
	return err
}

// checkPolicy refuses flags that name two policies or none, or say how
// to read a bundle that is not read.
func (o matrixOptions) checkPolicy() error {
	switch {
	case o.mixed():
		return errors.New("give either --bundle or PACK_DIR... and --grants, not both")
	case len(o.bundles) == 0 && len(o.grants) == 0:
		// Required but for --diff, which finds the grant files itself.
		return errors.New(`required flag --grants not set: hcp-rego matrix --help shows an example`)
	}
	return o.checkBundleFlags()
}

// compute computes the matrix of the packs and grant files, or of the
// bundles, as the flags say; notes on the bundles read go to notes. With
// bundles, unavailable says why the matrix is tenant_unavailable when it
// is (Matrix.TenantUnavailable).
func (o matrixOptions) compute(ctx context.Context, notes io.Writer) (mx *matrix.Matrix, unavailable string, err error) {
	opts := matrix.Options{Mode: o.mode, Tenant: o.tenant}
	if len(o.bundles) == 0 {
		m, err := o.checked()
		if err != nil {
			return nil, "", err
		}
		if opts.Subjects, err = pickSubjects(matrix.Subjects(m), o.subjects); err != nil {
			return nil, "", err
		}
		mx, err = matrix.Compute(ctx, m, opts)
		return mx, "", err
	}
	p, err := policy.Read(ctx, o.source(nil))
	if err != nil {
		return nil, "", err
	}
	noteUnverified(notes, p)
	if opts.Subjects, err = pickSubjects(matrix.BundleSubjects(p.Bundle), o.subjects); err != nil {
		return nil, "", err
	}
	ev, err := p.Evaluator(ctx)
	if err != nil {
		return nil, "", err
	}
	mx, err = matrix.ComputeBundle(ctx, p.Bundle, ev, opts)
	if err != nil {
		return nil, "", err
	}
	return mx, matrix.UnavailableNote(p.Bundle, o.tenant), nil
}

// pickSubjects checks --subject against the subjects the grants name (and
// default), known; none given means all of them.
func pickSubjects(known, picked []string) ([]string, error) {
	if len(picked) == 0 {
		return nil, nil
	}
	for _, s := range picked {
		if !slices.Contains(known, s) {
			return nil, fmt.Errorf("--subject %q: no grant names it; the subjects are %s", s, strings.Join(known, ", "))
		}
	}
	return picked, nil
}

// colourful reports whether w is a terminal that colour is wanted on: a
// character device, with NO_COLOR unset or empty and TERM not "dumb".
func colourful(w io.Writer) bool {
	if o, ok := w.(*outputWriter); ok {
		w = o.w
	}
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && terminal(w)
}

// writeTenantNotes tells the user which grants count for no cell because
// they hold only for another tenant.
func writeTenantNotes(w io.Writer, m *compile.Model, tenant string) {
	for _, n := range matrix.TenantNotesOf(m, tenant) {
		fmt.Fprintln(w, n.Text())
	}
}

// writeAnomalies names every cell whose decision the matrix did not expect
// and showed as deny.
func writeAnomalies(w io.Writer, mx *matrix.Matrix) {
	for _, a := range mx.Anomalies {
		fmt.Fprintf(w, "note: %s on %s: decision %q, shown as deny (the matrix expects allowed, confirm_required or capability_required)\n",
			printable.Quote(a.Subject), printable.Quote(a.Row.String()), a.Code)
	}
}

func runMatrixDiff(ctx context.Context, s streams, o matrixOptions) error {
	switch {
	case len(o.packs) != 2:
		return badInput(errors.New("--diff takes two folders: OLD_DIR NEW_DIR"))
	case len(o.grants) > 0:
		return badInput(errors.New("--diff finds the grant files under OLD_DIR and NEW_DIR; leave out --grants"))
	case len(o.bundles) > 0:
		return badInput(errors.New("--diff compares two folders of packs and grant files; leave out --bundle"))
	case len(o.subjects) > 0:
		return badInput(errors.New("--diff shows every subject of both versions; leave out --subject"))
	case o.formatSet && o.format != "markdown":
		return badInput(fmt.Errorf("--format %q: --diff prints markdown only", o.format))
	}
	if err := o.checkCommon(); err != nil {
		return badInput(err)
	}
	if err := o.checkBundleFlags(); err != nil {
		return badInput(err)
	}
	// Both versions' problems, sorted together, each once (a file both
	// folders hold is read twice).
	var errs problem.Errors
	before, err := loadTree(o.packs[0], o.sources.limits())
	errs.Merge("", err)
	after, err := loadTree(o.packs[1], o.sources.limits())
	errs.Merge("", err)
	if err := errs.Err(); err != nil {
		return badInput(err)
	}
	d, err := matrix.Compare(ctx, before, after, matrix.Options{Mode: o.mode, Tenant: o.tenant})
	if err != nil {
		return badInput(err)
	}
	var out bytes.Buffer
	if err := d.WriteMarkdown(&out); err != nil {
		return err
	}
	writeTenantNotes(s.err, before, o.tenant)
	writeTenantNotes(s.err, after, o.tenant)
	writeAnomalies(s.err, d.Old)
	writeAnomalies(s.err, d.New)
	_, err = s.out.Write(out.Bytes())
	return err
}

// loadTree finds the packs and grant files under dir (as hcp-rego test
// does), loads and lints them. A folder with no pack is a version with no
// commands: every row of the other version is added or removed.
func loadTree(dir string, limits compile.Limits) (*compile.Model, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", printable.LineStart(dir), problem.Describe(err, "no such folder"))
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: is a file, want a folder of packs and grant files", printable.LineStart(dir))
	}
	// Every problem under dir is reported at once: a broken file that
	// discovery meets, and what loading and linting the rest find.
	var errs problem.Errors
	found, err := discover.Discover([]string{dir})
	errs.Merge(dir, err)
	sources := limits.Load(found.Packs, found.GrantFiles)
	if found.Incomplete {
		sources.MarkPacksMissing() // the folder discovery could not walk may hold them
	}
	if len(errs) > 0 {
		errs.Merge(dir, sources.Problems())
		return nil, errs.Err()
	}
	m, err := sources.Check()
	if err != nil {
		errs.Merge(dir, err)
		return nil, errs.Err()
	}
	return m, nil
}
