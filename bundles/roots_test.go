package bundles_test

import (
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	"github.com/hcp-rego/hcp-rego/internal/bundletest"
)

// TestReadDecisionBundleRefusesMisreads reads, as a file and as bytes
// from a registry, each change of a built bundle that an OPA sidecar
// would read differently (docs/bundles.md, "What a sidecar would read
// differently"): each is refused, naming the bundle and what is wrong. The
// bundle as built is read.
func TestReadDecisionBundleRefusesMisreads(t *testing.T) {
	good, err := compile.Compile(exampleModel(t), "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := bundles.Build(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bundles.ReadDecisionBundle(writeTemp(t, "hcp.tar.gz", data), nil, bundles.DefaultLimits); err != nil {
		t.Fatalf("the bundle as built: %v", err)
	}
	for _, m := range bundletest.Misreads {
		t.Run(m.Name, func(t *testing.T) {
			data, err := m.Tarball(good)
			if err != nil {
				t.Fatal(err)
			}
			path := writeTemp(t, "hcp.tar.gz", data)
			_, fromFile := bundles.ReadDecisionBundle(path, nil, bundles.DefaultLimits)
			_, fromBytes := bundles.ReadDecisionTarball("registry.example/hcp:r1", data, nil, bundles.DefaultLimits)
			for name, err := range map[string]error{path: fromFile, "registry.example/hcp:r1": fromBytes} {
				if want := name + ": bundle refused: " + m.Words; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %v\nwant %s...", err, want)
				}
			}
		})
	}
}

// TestCheckApart holds bundles read together to OPA's own check of their
// roots: no two bundles' roots may be the same or one inside the other,
// compared by path segment; one bundle's roots are its own business.
func TestCheckApart(t *testing.T) {
	ext := bundles.BundleRoots{Name: "--ext", Roots: []string{bundles.ExtRoot}}
	tests := []struct {
		name string
		all  []bundles.BundleRoots
		want string // "" when apart, else in the error after "hcp.tar.gz: bundle refused: "
	}{
		{"ours beside the runtime's", []bundles.BundleRoots{{"hcp.tar.gz", bundles.Roots()}, ext}, ""},
		{"one bundle", []bundles.BundleRoots{{"hcp.tar.gz", []string{""}}}, ""},
		{"siblings by name, not by segment", []bundles.BundleRoots{{"hcp.tar.gz", []string{"hcp/ex", "hcp/ext2", "hcp_ext"}}, ext}, ""},
		{"disjoint shards", []bundles.BundleRoots{{"hcp.tar.gz", []string{"hcp_grants/0"}}, {"shard-1.tar.gz", []string{"hcp_grants/1"}}}, ""},
		{"hcp over the runtime's", []bundles.BundleRoots{{"hcp.tar.gz", []string{"hcp", "hcp_grants"}}, ext},
			"detected overlapping roots in manifests for these bundles: [--ext, hcp.tar.gz] (hcp overlaps hcp/ext)"},
		{"the same root", []bundles.BundleRoots{{"hcp.tar.gz", bundles.Roots()}, {"shard-0.tar.gz", []string{bundles.GrantsRoot}}},
			"root hcp_grants is in multiple bundles"},
		{"a shard inside the grants", []bundles.BundleRoots{{"hcp.tar.gz", bundles.Roots()}, {"shard-0.tar.gz", []string{bundles.GrantsRoot + "/0"}}},
			"hcp_grants overlaps hcp_grants/0"},
		{"all of data", []bundles.BundleRoots{{"hcp.tar.gz", []string{""}}, ext},
			"bundles [--ext, hcp.tar.gz] have overlapping roots and cannot be activated simultaneously because bundle(s) [hcp.tar.gz] specify empty root paths ('')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := bundles.CheckApart(tt.all...)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), "hcp.tar.gz: bundle refused: ") || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v\nwant hcp.tar.gz: bundle refused: ...%s...", err, tt.want)
			}
		})
	}
}
