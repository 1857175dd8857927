package largeset

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
)

// LogSpec sizes a generated decision log.
type LogSpec struct {
	Events   int // decision events
	Distinct int // distinct inputs among them
	Packs    int // the packs of the set the calls go to
	Verbs    int // the commands a pack
}

// WriteDecisionLog writes a gzip'd console decision log as an OPA sidecar
// writes it (decision_logs.console): events.Events decision events over
// exactly events.Distinct distinct inputs, on the set's packs and
// commands, four in five of hcp/authz/decision and one in five of
// hcp/authz/allow, with one of OPA's own server log lines every 50
// events. The logged results are not the set's: what a replay reports is
// beside the point, the work of reading and deciding is.
func WriteDecisionLog(path string, s LogSpec) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	w := bufio.NewWriterSize(zw, 1<<20)
	codes := []string{"allowed", "confirm_required", "capability_required", "land_denied"}
	for i := range s.Events {
		// Every input comes once in the first Distinct events, then again
		// in a scattered order.
		k := i
		if i >= s.Distinct {
			k = int((uint64(i) * 2654435761) % uint64(s.Distinct))
		}
		if i%50 == 0 {
			fmt.Fprintf(w, `{"client_addr":"10.0.0.7:52344","level":"info","msg":"Received request.","req_id":%d,"req_method":"POST","req_path":"/v1/data/hcp/authz/decision","time":"2026-12-01T10:00:00Z"}`+"\n", i)
		}
		user := fmt.Sprintf("u%05d", k%30000)
		input := fmt.Sprintf(`{"principal":{"id":%q,"tenant":"acme","roles":["r%03d","bench"]},"pack_id":%q,"verb_key":%q,"owner":%q,"args":{"target":"t%d","amount":%d.50}}`,
			user, k%200, PackID(k%s.Packs), VerbKey(1+(k/s.Packs)%(s.Verbs-1)), user, k, k%1000)
		path, result := "hcp/authz/decision", fmt.Sprintf(`{"allow":false,"code":%q,"pack_id":%q,"reasons":[]}`, codes[k%4], PackID(k%s.Packs))
		if i%5 == 4 {
			path, result = "hcp/authz/allow", "false"
		}
		fmt.Fprintf(w, `{"bundles":{"hcp":{"revision":"r1"}},"decision_id":"%08x-5f1e-4c2b-9d1a-%012x","input":%s,"labels":{"id":"5f1e2c3d","version":"1.22.3"},"level":"info","metrics":{"timer_rego_query_eval_ns":41200,"timer_server_handler_ns":97100},"msg":"Decision Log","path":%q,"req_id":%d,"requested_by":"10.0.0.7:52344","result":%s,"time":"2026-12-01T10:00:00Z","timestamp":"2026-12-01T10:00:00.123456789Z","type":"openpolicyagent.org/decision_logs"}`+"\n",
			i, i, input, path, i, result)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
