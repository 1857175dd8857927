package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxBundleBytesSetsValuesAndTerms checks that --max-bundle-bytes
// sets the limits of values and of terms with the bytes: a bundle with
// 100,000 more values in a data file, or 70,000 more terms in a module,
// is decided under the defaults and refused under --max-bundle-bytes
// 1MiB (87,381 values and 65,536 terms), the limit named.
func TestMaxBundleBytesSetsValuesAndTerms(t *testing.T) {
	values := "{\"pad\": [" + strings.Repeat("0,", 99_999) + "0]}"
	terms := "package hcp.authz\n\n_pad := [" + strings.Repeat("0,", 69_999) + "0]\n"
	for _, c := range []struct {
		name, file, body, want string
	}{
		{"values", "/hcp_grants/pad/data.json", values, "hcp_grants/pad/data.json takes its JSON files past the limit of 87381 values in all"},
		{"terms", "/hcp/authz/pad.rego", terms, "takes its Rego modules past the limit of 65536 terms in all"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := fixture(t, nil)
			bundle := withFile(t, dir, buildGood(t, dir), c.file, []byte(c.body))
			input := filepath.Join(dir, "input.json")
			o := runWithin(t, bundleBound, "eval", "--bundle", bundle, "--input", input)
			if o.code != exitOK || !strings.Contains(o.stdout, `"code": "allowed"`) {
				t.Errorf("default limits: exit %d, stdout %q, stderr %q; want the call allowed", o.code, o.stdout, o.stderr)
			}
			o = runWithin(t, bundleBound, "eval", "--bundle", bundle, "--input", input, "--max-bundle-bytes", "1MiB")
			if o.code != exitBadInput || !strings.HasPrefix(o.stderr, bundle+": bundle refused: ") || !strings.Contains(o.stderr, c.want) || !strings.HasSuffix(o.stderr, "; --max-bundle-bytes raises it\n") {
				t.Errorf("--max-bundle-bytes 1MiB: exit %d, stderr %q; want exit 2 and %q", o.code, o.stderr, c.want)
			}
		})
	}
}
