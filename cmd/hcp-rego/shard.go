package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/printable"
)

type shardOptions struct {
	shards int
	format string
}

func newShardCommand(s streams) *cobra.Command {
	var o shardOptions
	cmd := &cobra.Command{
		Use:   "shard --shards N TENANT...",
		Short: "Print the shard of each tenant in a sharded build of N shards",
		Long: `Shard prints, for each tenant id, the shard of a build of N shards
(build --shards N) that holds its grants: the first two bytes of the
sha256 of the id, read as a big-endian unsigned number, modulo N. The
decision library and the Go API (compile.Shard) compute the same, so a
router sends a tenant's calls to a cell that loads its shard
(docs/fleet.md).

Each line is the shard, a space and the tenant id (quoted with Go escapes
when it holds a character that is not printable); --format json prints
{"shards": N, "tenants": {"ID": K, ...}}. An empty tenant id is refused:
the library reads it as no tenant, which needs no shard.`,
		Example: `  hcp-rego shard --shards 8 acme globex
  hcp-rego shard --shards 256 --format json "$TENANT" | jq -r '.tenants[]'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShard(s, o, args)
		},
	}
	cmd.Flags().IntVar(&o.shards, "shards", 0, "the number of shards of the build (2 to 4096; required)")
	cmd.Flags().StringVar(&o.format, "format", "text", "text|json")
	_ = cmd.MarkFlagRequired("shards")
	return cmd
}

func runShard(s streams, o shardOptions, tenants []string) error {
	if o.shards < 2 || o.shards > bundles.MaxShards {
		return badInput(fmt.Errorf("--shards %d: a sharded build makes from 2 to %d shards", o.shards, bundles.MaxShards))
	}
	for i, t := range tenants {
		if t == "" {
			// The library reads an empty tenant as none: such a principal
			// needs no shard, and a shard printed for it would send its
			// calls to one cell for nothing.
			return badInput(fmt.Errorf("TENANT %d is empty: a principal without a tenant (or with an empty one) needs no shard, and any cell decides it", i+1))
		}
	}
	switch o.format {
	case "text":
		for _, t := range tenants {
			fmt.Fprintf(s.out, "%d %s\n", compile.Shard(t, o.shards), printable.Quote(t))
		}
	case "json":
		of := map[string]int{}
		for _, t := range tenants {
			of[t] = compile.Shard(t, o.shards)
		}
		out, _ := json.Marshal(map[string]any{"shards": o.shards, "tenants": of}) // ints and strings encode
		fmt.Fprintf(s.out, "%s\n", out)
	default:
		return badInput(fmt.Errorf("--format %s: want text or json", printable.Quote(o.format)))
	}
	return nil
}
