package policy

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
)

const testdata = "../../testdata/"

// build writes the example packs' bundle to dir/name, signed when
// signing is given, and returns its path.
func build(t *testing.T, dir, name string, signing *bundles.Signing) string {
	t.Helper()
	path := filepath.Join(dir, name)
	_, err := compile.Build(compile.BuildOptions{
		Packs:   []string{testdata + "packs"},
		Grants:  []string{testdata + "grants/acme.json"},
		Output:  path,
		Signing: signing,
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBundlesReadTogetherAreApart holds the bundles that one policy
// reads to OPA's check of bundles activated together: two that claim the
// same roots are refused, naming the first, as a sidecar refuses to load
// them side by side.
func TestBundlesReadTogetherAreApart(t *testing.T) {
	dir := t.TempDir()
	one, two := build(t, dir, "one.tar.gz", nil), build(t, dir, "two.tar.gz", nil)
	s := Source{Bundles: []string{one, two}, Reader: BundleReader{Limits: bundles.DefaultLimits}}
	names, read, err := s.readBundles(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), one+": bundle refused: ") {
		t.Errorf("two bundles of the same roots: error %v; want %s refused", err, one)
	}
	if len(names) != 2 || len(read) != 2 {
		t.Errorf("read %d bundles named %q; want both, each read before they are judged together", len(read), names)
	}
	s.Bundles = []string{one}
	if _, _, err := s.readBundles(context.Background()); err != nil {
		t.Errorf("one bundle: %v", err)
	}
}

// TestReadTakesOnePolicyBundle holds Read to what a sidecar decides
// with: one bundle with the decision library, never some of several
// without a word, and never shards alone.
func TestReadTakesOnePolicyBundle(t *testing.T) {
	dir := t.TempDir()
	path := build(t, dir, "hcp.tar.gz", nil)
	s := Source{Bundles: []string{path, path}, Reader: BundleReader{Limits: bundles.DefaultLimits}}
	if _, err := Read(context.Background(), s); err == nil || !strings.Contains(err.Error(), "each hold the decision library") {
		t.Errorf("two policy bundles: error %v; want them refused", err)
	}
}

// TestSignedUnverified names a signed bundle read without a key, and
// nothing when the key verified it or the bundle is not signed.
func TestSignedUnverified(t *testing.T) {
	dir := t.TempDir()
	signed := build(t, dir, "signed.tar.gz", &bundles.Signing{KeyFile: testdata + "keys/rsa.key", KeyID: "hcp"})
	unsigned := build(t, dir, "unsigned.tar.gz", nil)
	key := &bundles.Verification{KeyFile: testdata + "keys/rsa.pub", KeyID: "hcp"}
	for _, tt := range []struct {
		name   string
		bundle string
		verify *bundles.Verification
		want   string
	}{
		{"signed, no key", signed, nil, signed},
		{"signed, verified", signed, key, ""},
		{"unsigned", unsigned, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Read(context.Background(), Source{Bundles: []string{tt.bundle}, Reader: BundleReader{Verify: tt.verify, Limits: bundles.DefaultLimits}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.SignedUnverified(), " "); got != tt.want {
				t.Errorf("SignedUnverified() = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestLimitHint adds the hint to a refusal for the limits, and to no
// other error.
func TestLimitHint(t *testing.T) {
	dir := t.TempDir()
	path := build(t, dir, "hcp.tar.gz", nil)
	r := BundleReader{Limits: bundles.LimitsOf(1 << 10), Hint: "raise it"}
	if _, err := r.Read(context.Background(), path); err == nil || !strings.HasSuffix(err.Error(), "; raise it") {
		t.Errorf("over the limits: error %v; want it to end with the hint", err)
	}
	r.Limits = bundles.DefaultLimits
	if _, err := r.Read(context.Background(), filepath.Join(dir, "missing.tar.gz")); err == nil || strings.Contains(err.Error(), "raise it") {
		t.Errorf("a missing bundle: error %v; want no hint", err)
	}
}
