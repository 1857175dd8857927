package bundles_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

// TestManifestStaysSmall builds bundles of 10 and of 1,000 packs: the
// manifest holds the same few values for both (an OPA server reads it on
// every request), some digits longer, and the list of sources, which grows
// with the packs, is data.
func TestManifestStaysSmall(t *testing.T) {
	size := map[int]int{}
	for _, packs := range []int{10, 1000} {
		set, err := largeset.Write(t.TempDir(), largeset.Spec{Packs: packs, Verbs: 5, Triggers: 1, Grants: packs, GrantFiles: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		data := builtFrom(t, set.PackDirs, set.GrantFiles)
		manifest, tables := memberJSON(t, data, "/.manifest"), memberJSON(t, data, "/data.json")
		size[packs] = len(manifest)
		var d struct {
			Grants struct {
				Base struct {
					Sources map[string]string `json:"sources"`
				} `json:"base"`
			} `json:"hcp_grants"`
		}
		if err := json.Unmarshal(tables, &d); err != nil {
			t.Fatal(err)
		}
		list := d.Grants.Base.Sources
		if want := 2*packs + 2; len(list) != want {
			t.Errorf("%d packs: hcp_grants.base.sources lists %d files, want %d", packs, len(list), want)
		}
	}
	if size[1000] > size[10]+4 || size[1000] > 512 {
		t.Errorf(".manifest of %d bytes for 10 packs, %d for 1,000: want the same but for the counts' digits, within 512 bytes", size[10], size[1000])
	}
}

// TestProvenanceChecked reads the example bundle with its manifest or its
// list of sources changed: a bundle whose manifest names a list that its
// data does not hold is refused, one built before the list moved to data
// (its manifest listing the files itself) is read.
func TestProvenanceChecked(t *testing.T) {
	good := build(t, "", nil)
	const refused = ": bundle refused: .manifest's metadata.hcp names sources that its data does not hold ("
	tests := []struct {
		name   string
		member string
		change func(map[string]any)
		want   string // "" to read, else what follows refused
	}{
		{"as built", "/.manifest", func(map[string]any) {}, ""},
		{"a file's sha256 changed", "/data.json", func(d map[string]any) {
			sources(d)["../testdata/grants/acme.json"] = strings.Repeat("0", 64)
		}, "data.hcp_grants.base.sources lists 8 files of sha256 "},
		{"a file added", "/data.json", func(d map[string]any) { sources(d)["other.json"] = strings.Repeat("0", 64) }, "data.hcp_grants.base.sources lists 9 files of sha256 "},
		{"the list gone", "/data.json", func(d map[string]any) { delete(d["hcp_grants"].(map[string]any)["base"].(map[string]any), "sources") }, "data.hcp_grants.base.sources is missing, or not an object of strings"},
		{"a sha256 not a string", "/data.json", func(d map[string]any) { sources(d)["other.json"] = 1 }, "data.hcp_grants.base.sources is missing, or not an object of strings"},
		{"the digest changed", "/.manifest", func(d map[string]any) { hcpMeta(d)["sources_sha256"] = strings.Repeat("0", 64) }, "data.hcp_grants.base.sources lists 8 files of sha256 "},
		{"the count changed", "/.manifest", func(d map[string]any) { hcpMeta(d)["sources"] = 9 }, "data.hcp_grants.base.sources lists 8 files of sha256 "},
		{"the count a string", "/.manifest", func(d map[string]any) { hcpMeta(d)["sources"] = "8" }, "data.hcp_grants.base.sources lists 8 files of sha256 "},
		{"built before the list moved", "/.manifest", func(d map[string]any) {
			d["metadata"] = map[string]any{"hcp": map[string]any{"packs": []string{"ledger"}, "files": map[string]any{"x.json": strings.Repeat("0", 64)}}}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "b.tar.gz", changed(t, good, tt.member, tt.change))
			_, err := bundles.ReadDecisionBundle(path, nil, bundles.DefaultLimits)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want == "":
			case err == nil || !strings.HasPrefix(err.Error(), path+refused+tt.want) || !strings.HasSuffix(err.Error(), "): its provenance cannot be checked"):
				t.Errorf("error %v, want %s%s%s...", err, path, refused, tt.want)
			}
		})
	}
}

// sources is the list of sources in a bundle's data.
func sources(data map[string]any) map[string]any {
	return data["hcp_grants"].(map[string]any)["base"].(map[string]any)["sources"].(map[string]any)
}

// hcpMeta is metadata.hcp of a bundle's manifest.
func hcpMeta(manifest map[string]any) map[string]any {
	return manifest["metadata"].(map[string]any)["hcp"].(map[string]any)
}

// memberJSON is the content of the member name of the tarball data.
func memberJSON(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	_, entries := untar(t, data)
	for _, e := range entries {
		if e.hdr.Name == name {
			return e.body
		}
	}
	t.Fatalf("no %s in the bundle", name)
	return nil
}

// changed is the tarball data with the JSON member name changed by change.
func changed(t *testing.T, data []byte, name string, change func(map[string]any)) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	_, entries := untar(t, data)
	for _, e := range entries {
		body := e.body
		if e.hdr.Name == name {
			var v map[string]any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			change(v)
			var err error
			if body, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		hdr := *e.hdr
		hdr.Size = int64(len(body))
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return out.Bytes()
}
