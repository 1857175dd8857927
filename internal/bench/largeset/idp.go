package largeset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// writeIdPGrants writes n grants shaped as a large IdP exports them (see
// IdP), one grant a line as such an export writes them. Each principal
// belongs to one tenant and holds some ten grants; each grant on a
// command gives the capability that its row needs, so that every grant
// fills a slot of the tables. The file is written grant by grant: a
// million grants held as Go values cost the generator more than the
// build it measures.
func writeIdPGrants(path string, n int, s Spec, r *rand.Rand) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	grants := idpGrants(path, n, s, r)
	fmt.Fprint(w, "{\"version\": 1, \"grants\": [\n")
	for i := range n {
		line, err := json.Marshal(grants(i))
		if err != nil {
			f.Close()
			return err
		}
		if i > 0 {
			w.WriteString(",\n")
		}
		w.Write(line)
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// idpGrant is one grant of an IdP set, its members in the order an export
// writes them.
type idpGrant struct {
	Subject      string   `json:"subject"`
	Tenant       string   `json:"tenant,omitempty"`
	PackID       string   `json:"pack_id"`
	VerbKey      string   `json:"verb_key,omitempty"`
	Capabilities []string `json:"capabilities"`
}

// idpGrants returns the maker of grant i of the file at path, of n
// grants; the first file starts with BenchGrants.
func idpGrants(path string, n int, s Spec, r *rand.Rand) func(int) any {
	tenants := s.Tenants
	if tenants <= 0 {
		tenants = 10_000
	}
	principals := max(tenants, s.Grants/10)
	bench := 0
	if filepath.Base(path) == "g00.json" {
		bench = len(BenchGrants)
	}
	return func(i int) any {
		if i < bench {
			return BenchGrants[i]
		}
		pack := PackID(r.IntN(s.Packs))
		if r.IntN(10) == 0 {
			return idpGrant{
				Subject: fmt.Sprintf("role:r%02d", r.IntN(20)), Tenant: tenantID(r.IntN(tenants)),
				PackID: pack, Capabilities: []string{"verb.exec.read", "verb.exec.write"},
			}
		}
		p := r.IntN(principals)
		g := idpGrant{Subject: fmt.Sprintf("principal:u%07d", p), Tenant: tenantID(p % tenants), PackID: pack, Capabilities: []string{"verb.exec.read"}}
		if s.Verbs > 1 { // command 0 is the connect command
			j := 1 + r.IntN(s.Verbs-1)
			g.VerbKey = VerbKey(j)
			if op, _, _ := row(j); op == "write" {
				g.Capabilities = []string{"verb.exec.write"}
			}
		}
		return g
	}
}

// tenantID names tenant t.
func tenantID(t int) string { return fmt.Sprintf("t%05d", t) }
