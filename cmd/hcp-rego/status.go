package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/fleet"
)

type statusOptions struct {
	urls         []string
	bundle       string
	wantRevision string
	wait         time.Duration
	format       string
}

// maxWait bounds --wait: a pipeline gate, not a daemon.
const maxWait = 24 * time.Hour

func newStatusCommand(s streams) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status URL... [--bundle NAME] [--want-revision R] [--wait DURATION] [--format table|json]",
		Short: "Show which bundle revision each OPA sidecar runs; gate a rollout on it",
		Long: `Status asks each OPA (URL is its base address, such as
http://10.0.0.7:8181) about the bundle NAME (default hcp) and prints one
row a sidecar: its active revision, its last successful activation and
its last download or activation error (a refused signature, say). It uses
OPA's GET /v1/status when the status plugin is on, else
GET /v1/data/system/bundles and GET /health?bundles, which give no
activation time. A sidecar without the bundle is a row that names the
bundles it has: opa run --bundle cal.tar.gz names its bundle cal.tar.gz,
so pass --bundle cal.tar.gz.

With --want-revision R, status exits 1 unless every sidecar runs R; without
it, unless every sidecar runs some revision. A sidecar that cannot be
asked is a row with its error and is never done. --wait D asks again every
second until every sidecar is done or D has passed. The first round is
given 15 s when D is shorter (a sidecar without the status plugin is
asked three times, 5 s each at most), however many sidecars there are.
Redirects are not followed: a sidecar that answers with one is a row with
that error.`,
		Example: `  hcp-rego status http://10.0.0.7:8181 http://10.0.0.8:8181 --want-revision "$(git rev-parse HEAD)" --wait 2m
  hcp-rego status http://localhost:8181 --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.urls = args
			return runStatus(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.bundle, "bundle", "hcp", "the bundle's name in the sidecars' configuration")
	f.StringVar(&o.wantRevision, "want-revision", "", "exit 1 unless every sidecar runs this revision")
	f.DurationVar(&o.wait, "wait", 0, "ask again until every sidecar is done or this long has passed, such as 40s")
	f.StringVar(&o.format, "format", "table", "output format: table or json")
	return cmd
}

func runStatus(ctx context.Context, s streams, o statusOptions) error {
	if err := o.check(); err != nil {
		return badInput(err)
	}
	c := fleet.Client{Bundle: o.bundle}
	rows := c.Watch(ctx, o.urls, o.wantRevision, o.wait)
	report := fleet.Report{Bundle: o.bundle, WantRevision: o.wantRevision, Converged: fleet.Converged(rows, o.wantRevision), Sidecars: rows}
	var err error
	if o.format == "json" {
		err = report.WriteJSON(s.out)
	} else {
		err = report.WriteTable(s.out)
	}
	if err != nil {
		return err
	}
	if !report.Converged {
		return findings()
	}
	return nil
}

func (o statusOptions) check() error {
	switch {
	case o.format != "table" && o.format != "json":
		return fmt.Errorf("--format %q: want table or json", o.format)
	case o.wait < 0 || o.wait > maxWait:
		return errors.New("--wait: want a duration from 0 to 24h")
	}
	for _, u := range o.urls {
		if err := fleet.CheckURL(u); err != nil {
			return err
		}
	}
	return nil
}
