package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/internal/fleet"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

type statusOptions struct {
	urls         []string
	bundles      []string
	wantRevision []string
	wait         time.Duration
	format       string
}

// maxWait bounds --wait: a pipeline gate, not a daemon.
const maxWait = 24 * time.Hour

func newStatusCommand(s streams) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status URL... [--bundle NAME]... [--want-revision [NAME=]R]... [--wait DURATION] [--format table|json]",
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
that error.

--bundle may be given again to ask each sidecar about several bundles,
such as a cell's policy bundle and shards (docs/fleet.md): one row a
sidecar and bundle, and --want-revision NAME=R, once a bundle, names the
revision wanted of the bundle NAME (a bundle without one must run some
revision). A --want-revision whose text before its first "=" is not a
--bundle name is the revision of the only --bundle, and is refused beside
several. The JSON of several bundles is {"converged": ..., "bundles":
[...]}, one object a bundle as status of one prints it.`,
		Example: `  hcp-rego status http://10.0.0.7:8181 http://10.0.0.8:8181 --want-revision "$(git rev-parse HEAD)" --wait 2m
  hcp-rego status http://localhost:8181 --format json
  hcp-rego status http://cell-a-1:8181 http://cell-a-2:8181 --bundle hcp --bundle shard-0 --bundle shard-5 \
    --want-revision hcp=3f2a9c1d0b7e4a65 --want-revision shard-5=9e0c41d27ab35f08 --wait 2m`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.urls = args
			return runStatus(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.bundles, "bundle", []string{"hcp"}, "the bundle's name in the sidecars' configuration; again for several")
	f.StringArrayVar(&o.wantRevision, "want-revision", nil, "exit 1 unless every sidecar runs this revision; NAME=R for the bundle NAME's")
	f.DurationVar(&o.wait, "wait", 0, "ask again until every sidecar is done or this long has passed, such as 40s")
	f.StringVar(&o.format, "format", "table", "output format: table or json")
	return cmd
}

func runStatus(ctx context.Context, s streams, o statusOptions) error {
	wants, err := o.check()
	if err != nil {
		return badInput(err)
	}
	var c fleet.Client
	rows := c.WatchEach(ctx, o.urls, wants, o.wait)
	reports := fleet.Reports{Converged: fleet.ConvergedEach(rows, wants)}
	for i, w := range wants {
		reports.Bundles = append(reports.Bundles, fleet.Report{Bundle: w.Bundle, WantRevision: w.Revision, Converged: fleet.Converged(rows[i], w.Revision), Sidecars: rows[i]})
	}
	if err := writeStatus(s, o.format, reports); err != nil {
		return err
	}
	if !reports.Converged {
		return findings()
	}
	return nil
}

// writeStatus writes the reports in format: about one bundle as status
// always wrote it, about several with a row a sidecar and bundle.
func writeStatus(s streams, format string, r fleet.Reports) error {
	one := len(r.Bundles) == 1
	switch {
	case format == "json" && one:
		return r.Bundles[0].WriteJSON(s.out)
	case format == "json":
		return r.WriteJSON(s.out)
	case one:
		return r.Bundles[0].WriteTable(s.out)
	}
	return r.WriteTable(s.out)
}

// check refuses a bad flag or URL, and returns the bundles asked about
// with the revision wanted of each.
func (o statusOptions) check() ([]fleet.Want, error) {
	switch {
	case o.format != "table" && o.format != "json":
		return nil, fmt.Errorf("--format %q: want table or json", o.format)
	case o.wait < 0 || o.wait > maxWait:
		return nil, errors.New("--wait: want a duration from 0 to 24h")
	}
	for _, u := range o.urls {
		if err := fleet.CheckURL(u); err != nil {
			return nil, err
		}
	}
	return o.wants()
}

// wants are the --bundle names, each with the revision --want-revision
// wants of it: NAME=R, when NAME is a --bundle name, names that bundle's;
// any other value is the only bundle's revision.
func (o statusOptions) wants() ([]fleet.Want, error) {
	wants := make([]fleet.Want, len(o.bundles))
	index := map[string]int{}
	for i, name := range o.bundles {
		if name == "" {
			return nil, errors.New("--bundle \"\": want a bundle's name in the sidecars' configuration, such as hcp")
		}
		if _, twice := index[name]; twice {
			return nil, fmt.Errorf("--bundle %s given twice", printable.Quote(strconv.Quote(name)))
		}
		index[name] = i
		wants[i].Bundle = name
	}
	wanted := map[int]bool{}
	for _, v := range o.wantRevision {
		i, rev, err := wantOf(v, index, len(o.bundles))
		if err != nil {
			return nil, err
		}
		if wanted[i] {
			return nil, fmt.Errorf("--want-revision: two revisions wanted of bundle %s", printable.Quote(strconv.Quote(wants[i].Bundle)))
		}
		wanted[i], wants[i].Revision = true, rev
	}
	return wants, nil
}

// wantOf reads one --want-revision v: which bundle (an index into the
// --bundle names, of which there are n) and the revision wanted of it.
func wantOf(v string, index map[string]int, n int) (int, string, error) {
	if name, rev, ok := strings.Cut(v, "="); ok {
		if i, named := index[name]; named {
			return i, rev, nil
		}
	}
	if n > 1 {
		return 0, "", fmt.Errorf("--want-revision %s: with several --bundle, name the bundle: --want-revision NAME=R, NAME one of the --bundle names", printable.Quote(strconv.Quote(v)))
	}
	return 0, v, nil
}
