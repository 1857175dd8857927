package matrix

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

// ComputeBundle evaluates the matrix of a policy as built: b is what a
// sidecar holds (a bundle, or a policy bundle and shards joined as
// policy.Read joins them), and ev decides with it. The rows are those
// of b's packs (data.hcp_packs), the subjects those of its grant tables
// (BundleSubjects). A principal whose tenant's shard b lacks is decided
// tenant_unavailable, which the matrix shows as deny
// (Matrix.TenantUnavailable).
func ComputeBundle(ctx context.Context, b *bundle.Bundle, ev *hcprego.Evaluator, o Options) (*Matrix, error) {
	if o.Mode == "" {
		o.Mode = ModeAsk
	}
	if o.Mode != ModeAsk && o.Mode != ModeRun {
		return nil, fmt.Errorf("mode %q: want ask or run", o.Mode)
	}
	held := holdersOf(b)
	subjects := o.Subjects
	if subjects == nil {
		subjects = held.subjects()
	}
	principals, err := principalsFor(held.principalIDs(), subjects, o.Tenant)
	if err != nil {
		return nil, err
	}
	mx := &Matrix{Mode: o.Mode, Subjects: slices.Clone(subjects), Rows: bundleRows(b), TenantNotes: held.tenantNotes(o.Tenant)}
	if err := mx.fill(ctx, ev, principals); err != nil {
		return nil, err
	}
	return mx, nil
}

// BundleSubjects lists every principal: and role: subject that the grant
// tables of b name, in the order of their first grant (the grant files
// in the order the build was given them, grants in file order), then
// Default: the subjects Subjects lists for the packs and grant files
// that b was built from, but for those whose grants b does not hold (a
// shard not loaded).
func BundleSubjects(b *bundle.Bundle) []string { return holdersOf(b).subjects() }

// tableHolders is what the matrix reads of a bundle's grant tables
// (compile's tablesOf): each subject's first grant (its smallest
// position in any slot; none for a subject that only roles or applies
// name), and the tenants their grants hold for.
type tableHolders struct {
	first   map[string]int64
	tenants map[string]bool
}

// holdersOf reads the holders of every table of b: base, and each
// shard's under shards. A holder is a subject as a grant file writes it,
// or the JSON text of [subject, tenant] (compile's holderKey).
func holdersOf(b *bundle.Bundle) tableHolders {
	h := tableHolders{first: map[string]int64{}, tenants: map[string]bool{}}
	grants, _ := b.Data[bundles.GrantsRoot].(map[string]any)
	tables := []any{grants[bundles.BaseKey]}
	shards, _ := grants[bundles.ShardsKey].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(shards)) {
		tables = append(tables, shards[k])
	}
	for _, t := range tables {
		h.readTables(t)
	}
	return h
}

// readTables reads the holders of one table set: slots[pack][field][key]
// [holder] = position, roles[pack][subject], applies[tenant][subject].
func (h tableHolders) readTables(t any) {
	tables, _ := t.(map[string]any)
	for _, fields := range objects(tables["slots"]) {
		for _, keys := range objects(fields) {
			for _, slot := range objects(keys) {
				for holder, pos := range slot {
					h.add(holder, position(pos))
				}
			}
		}
	}
	for _, subjects := range objects(tables["roles"]) {
		for subject := range subjects {
			h.add(subject, math.MaxInt64)
		}
	}
	for tenant, subjects := range objects(tables["applies"]) {
		for subject := range subjects {
			h.add(holderOf(subject, tenant), math.MaxInt64)
		}
	}
}

// holderOf is the holder of a subject's grants of tenant ("" for none).
func holderOf(subject, tenant string) string {
	if tenant == "" {
		return subject
	}
	text, _ := json.Marshal([]string{subject, tenant})
	return string(text)
}

// add records a holder's grant at pos (math.MaxInt64: a grant with no
// position known).
func (h tableHolders) add(holder string, pos int64) {
	subject, tenant, ok := splitHolder(holder)
	if !ok {
		return
	}
	if tenant != "" {
		h.tenants[tenant] = true
	}
	if first, seen := h.first[subject]; !seen || pos < first {
		h.first[subject] = pos
	}
}

// splitHolder reads a holder: a subject, or the JSON text of [subject,
// tenant].
func splitHolder(holder string) (subject, tenant string, ok bool) {
	if !strings.HasPrefix(holder, "[") {
		return holder, "", true
	}
	var pair []string
	if err := json.Unmarshal([]byte(holder), &pair); err != nil || len(pair) != 2 {
		return "", "", false
	}
	return pair[0], pair[1], true
}

// subjects are the named subjects by their first grant, then by name,
// then Default.
func (h tableHolders) subjects() []string {
	var out []string
	for s := range h.first {
		if s != Default && CheckSubject(s) == nil {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(h.first[a], h.first[b]), strings.Compare(a, b)) })
	return append(out, Default)
}

// principalIDs are the ids that principal: subjects name.
func (h tableHolders) principalIDs() map[string]bool {
	ids := map[string]bool{}
	for s := range h.first {
		if id, ok := strings.CutPrefix(s, "principal:"); ok {
			ids[id] = true
		}
	}
	return ids
}

// tenantNotes are the notes for a matrix of principals of tenant: one a
// tenant that some grant of the tables holds only for. A bundle's tables
// keep a subject's first grant on a slot, not each grant, so a note
// names the tenant, not the grants.
func (h tableHolders) tenantNotes(tenant string) []TenantNote {
	var notes []TenantNote
	for _, t := range slices.Sorted(maps.Keys(h.tenants)) {
		if t != tenant {
			notes = append(notes, TenantNote{Tenant: t})
		}
	}
	return notes
}

// bundleRows lists the rows of b's packs (data.hcp_packs) in the order
// rowsOf lists a model's: packs by id; in each its commands, then its
// triggers, by their line in policy.json (from the row's source), then
// key.
func bundleRows(b *bundle.Bundle) []*Row {
	packs, _ := b.Data[bundles.PacksRoot].(map[string]any)
	var rows []*Row
	for _, id := range slices.Sorted(maps.Keys(packs)) {
		pack, _ := packs[id].(map[string]any)
		for _, kind := range []struct{ field, name string }{{"verbs", KindVerb}, {"stimuli", KindStimulus}} {
			rows = append(rows, packRows(id, kind.name, objects(pack[kind.field]))...)
		}
	}
	return rows
}

// packRows are the rows of one kind of one pack, by line, then key.
func packRows(pack, kind string, rows map[string]map[string]any) []*Row {
	type row struct {
		key  string
		line int
		data map[string]any
	}
	var sorted []row
	for key, data := range rows {
		sorted = append(sorted, row{key, sourceLine(data["source"]), data})
	}
	slices.SortFunc(sorted, func(a, b row) int { return cmp.Or(cmp.Compare(a.line, b.line), strings.Compare(a.key, b.key)) })
	out := make([]*Row, len(sorted))
	for i, r := range sorted {
		operation, _ := r.data["operation"].(string)
		out[i] = &Row{RowID: RowID{PackID: pack, Kind: kind, Key: r.key}, Operation: operation, Cells: map[string]Disposition{}}
	}
	return out
}

// sourceLine is the line of a row's source, "file:line"; 0 when it has
// none.
func sourceLine(v any) int {
	s, _ := v.(string)
	line, _ := strconv.Atoi(s[strings.LastIndexByte(s, ':')+1:])
	return line
}

// objects is v's members that are objects, by key: the tables' levels.
func objects(v any) map[string]map[string]any {
	m, _ := v.(map[string]any)
	out := make(map[string]map[string]any, len(m))
	for k, member := range m {
		if o, ok := member.(map[string]any); ok {
			out[k] = o
		}
	}
	return out
}

// position is a whole number as the tables hold it (a grant's position,
// a number of shards): an int64 or int in a bundle compiled here, a
// json.Number in one read from a file; math.MaxInt64 when it is none.
func position(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return math.MaxInt64
}

// UnavailableNote says why a matrix of principals of tenant, decided
// with b, is tenant_unavailable in every cell (Matrix.TenantUnavailable):
// b is a sharded build's policy bundle without that tenant's shard, or
// with a shard of that number from a build of another number of shards.
func UnavailableNote(b *bundle.Bundle, tenant string) string {
	grants, _ := b.Data[bundles.GrantsRoot].(map[string]any)
	base, _ := grants[bundles.BaseKey].(map[string]any)
	n := position(base["shards"])
	if n < 1 || n > bundles.MaxShards {
		return fmt.Sprintf("note: tenant %q is unavailable here: every cell is tenant_unavailable, shown as deny", tenant)
	}
	k := compile.Shard(tenant, int(n))
	why := "is not among the bundles"
	if shard, loaded := objects(grants[bundles.ShardsKey])[strconv.Itoa(k)]; loaded {
		marker, _ := shard["shard"].(map[string]any)
		why = fmt.Sprintf("is from a build of %d shards", position(marker["of"]))
	}
	return fmt.Sprintf("note: tenant %q's shard, %d of %d (%s), %s: every cell is tenant_unavailable, shown as deny; give that shard with --bundle",
		tenant, k, n, bundles.ShardFile(k), why)
}
