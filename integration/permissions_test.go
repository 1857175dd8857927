package integration

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"reflect"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/reference"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// listingInputs are the corpus's inputs with their keys taken out, and
// some a console sends: each pack, an unknown one, garbage.
func listingInputs(t *testing.T) []any {
	t.Helper()
	var out []any
	for _, c := range corpus {
		in := decode(t, c.input)
		if doc, ok := in.(map[string]any); ok {
			doc = maps.Clone(doc)
			delete(doc, "verb_key")
			delete(doc, "stimulus")
			in = doc
		}
		out = append(out, in)
	}
	for _, text := range []string{
		`{"principal": {"id": "ann", "tenant": "acme", "roles": ["admin", "member"], "projects": ["p-1"]}, "pack_id": "mail", "owner": "ann", "project_id": "p-1"}`,
		`{"principal": {"id": "eve", "tenant": "acme", "roles": ["dev"]}, "pack_id": "workspace", "access": {"mode": "run"}, "workspace": {"root": "/home/eve/proj", "paths": []}}`,
		`{"principal": {"id": "bob", "roles": ["member"]}, "pack_id": "mail", "owner": "bob", "runtime": {"confirm": ["unusual hour"]}}`,
		`{"principal": {"id": "bob"}, "pack_id": "crm"}`,
		`{"principal": {"id": "bob"}, "pack_id": "mail", "args": []}`,
		`null`,
	} {
		out = append(out, decode(t, text))
	}
	return out
}

// TestSidecarListsAsTheReference loads our bundle beside the runtime
// bundle testdata/ext in `opa run --server` and asks it for listings: each
// equals the embedded evaluator's, the Go reference's (which decides every
// key whole), and what `hcp-rego permissions` prints for the same bundle
// and runtime rules.
func TestSidecarListsAsTheReference(t *testing.T) {
	t.Parallel()
	m := exampleModel(t, acme, defaults)
	tarball := buildFile(t, m, "", nil)
	s := startOPA(t, "--bundle", tarball, "--bundle", extDir)
	s.waitHealthy(t)
	b, err := bundles.Read(tarball, nil, bundles.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := hcprego.ReadExt([]string{extDir + "/hcp/ext"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := hcprego.New(context.Background(), b, ext...)
	if err != nil {
		t.Fatal(err)
	}
	ref := reference.New(m.Packs(), m.Grants())
	bin := buildHCPRego(t)
	codes := map[string]int{}
	for _, in := range listingInputs(t) {
		got, err := ev.Permissions(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		listings := map[string]any{
			"OPA":       normal(s.query(t, "hcp/authz/permissions", in)),
			"embedded":  normal(got.Doc),
			"reference": normal(ref.Permissions(in, extFor(in))),
			"CLI":       normal(cliListing(t, bin, tarball, in)),
		}
		for _, who := range []string{"embedded", "reference", "CLI"} {
			if !reflect.DeepEqual(listings["OPA"], listings[who]) {
				t.Errorf("listings of %s differ\n      OPA: %s\n%9s: %s", text(in), text(listings["OPA"]), who, text(listings[who]))
			}
		}
		codes[got.Code]++
		for _, e := range got.Verbs {
			codes[e.Code]++
		}
	}
	for _, code := range []string{"ok", "invalid_input", "unknown_pack", "allowed", "confirm_required", "runtime_denied", "land_denied", "capability_required", "pack_unavailable"} {
		if codes[code] == 0 {
			t.Errorf("no listing reached %s: %v", code, codes)
		}
	}
}

// cliListing is what `hcp-rego permissions --bundle tarball --ext` prints
// for input.
func cliListing(t *testing.T, bin, tarball string, input any) any {
	t.Helper()
	data, _ := json.Marshal(input)
	path := writeFile(t, "listing.json", data)
	out, err := exec.Command(bin, "permissions", "--bundle", tarball, "--ext", extDir+"/hcp/ext", "--input", path).Output()
	if err != nil {
		t.Fatalf("hcp-rego permissions %s: %v", data, err)
	}
	return decode(t, string(out))
}
