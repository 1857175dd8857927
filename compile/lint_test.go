package compile

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/hcp-rego/hcp-rego/internal/problem"
	"github.com/hcp-rego/hcp-rego/internal/treetest"
)

// lintLines are the message lines lint writes, each as a pattern of its
// whole text after "file:line:col: ": the lines HCP's policy seed gives
// and the grant error, then those its rules imply (docs/files.md,
// docs/choices.md). A suggestion is never part of one.
var lintLines = []string{
	`verb "[^"]+" missing from policy\.json`,
	`policy verb "[^"]+" not in pack manifest`,
	`stimulus "[^"]+" missing from policy\.json`,
	`policy stimulus "[^"]+" not in stimulusTriggers`,
	`policy surface_id "[^"]*" !== "[^"]+"`,
	`verb "[^"]+" is read: confirm is for writes only`,
	`stimulus "[^"]+" must be read: a trigger cannot write`,
	`verb "[^"]+" establishes a Binding and must be write`,
	`verb "[^"]+" is confirm-gated but its cli\[\] takes neither --confirm nor --apply`,
	`grant \d+: verb "[^"]+" not in policy for pack "[^"]+"`,
	// Ours, in the same shape.
	`stimulus "[^"]+" is read: confirm is for writes only`,
	`grant \d+: stimulus "[^"]+" not in policy for pack "[^"]+"`,
	`grant \d+: pack "[^"]+" not in the compiled packs`,
	`grant \d+: capability "[^"]+" cannot be granted on a verb_key`,
	`grant \d+: capability "[^"]+" cannot be granted on a stimulus`,
}

// everyFinding is a pack and a grant file that break every rule of lint at
// least once, most with a suggestion to make.
var everyFinding = map[string]string{
	"ledger/manifest.json": `{"id": "ledger",
 "commands": {
  "transfer": {"cli": ["ledger", "transfer", "{amount}"]},
  "balance": {}, "connect": {"connect": true}, "list": {}, "pay": {"cli": ["ledger", "pay"]}
 },
 "stimulusTriggers": ["new_item", "seen", "later"]}`,
	"ledger/policy.json": `{"surface_id": "ledgr",
 "verbs": {
  "balance": {"operation": "read", "privacy": {"land": "personal"}},
  "refunds": {"operation": "write", "privacy": {"land": "personal"}},
  "connect": {"operation": "read", "privacy": {"land": "personal"}},
  "list": {"operation": "read", "privacy": {"land": "personal"}, "confirm": true},
  "pay": {"operation": "write", "privacy": {"land": "personal"}, "confirm": "always"}
 },
 "stimuli": {
  "old_event": {"operation": "read", "privacy": {"land": "personal"}},
  "seen": {"operation": "write", "privacy": {"land": "personal"}},
  "later": {"operation": "read", "privacy": {"land": "personal"}, "confirm": true}
 }}`,
	"grants.json": `{"grants": [
  {"subject": "role:member", "pack_id": "ledger", "capabilities": ["verb.exec.read"]},
  {"subject": "principal:alice", "pack_id": "ledger", "verb_key": "refund", "capabilities": ["verb.exec.write"]},
  {"subject": "role:member", "pack_id": "ledgr", "capabilities": ["verb.exec.read"]},
  {"subject": "role:member", "pack_id": "ledger", "stimulus": "old", "capabilities": ["sense.enable"]},
  {"subject": "role:member", "pack_id": "ledger", "verb_key": "balance", "capabilities": ["sense.enable"]},
  {"subject": "role:member", "pack_id": "ledger", "stimulus": "seen", "capabilities": ["pack.connect"]}
]}`,
}

// TestLintLinesExact holds every line lint writes to the shape
// docs/commands.md gives ("Exit codes"): a message
// line is exactly one of lintLines after its position, so that a script
// can match it, and a suggestion is on an indented "  hint: " line of its
// own below the message it belongs to.
func TestLintLinesExact(t *testing.T) {
	dir := t.TempDir()
	treetest.Write(t, dir, everyFinding)
	t.Chdir(dir)
	s := Open([]string{"ledger"}, []string{"grants.json"})
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	err := s.Lint()
	if err == nil {
		t.Fatal("no finding")
	}
	patterns := make([]*regexp.Regexp, len(lintLines))
	for i, l := range lintLines {
		patterns[i] = regexp.MustCompile(`^(ledger/policy|ledger/manifest|grants)\.json:\d+:\d+: ` + l + `$`)
	}
	hint := regexp.MustCompile(`^  hint: \S`)
	matched := make([]int, len(patterns))
	hints := 0
	afterMessage := false
	for _, line := range strings.Split(err.Error(), "\n") {
		if hint.MatchString(line) {
			if !afterMessage {
				t.Errorf("hint line %q follows no message line", line)
			}
			hints++
			afterMessage = false
			continue
		}
		afterMessage = false
		for i, p := range patterns {
			if p.MatchString(line) {
				matched[i]++
				afterMessage = true
			}
		}
		if !afterMessage {
			t.Errorf("line %q is not a lint line of the shape docs/commands.md gives", line)
		}
	}
	for i, n := range matched {
		if n == 0 {
			t.Errorf("no finding matched %s: the test's files no longer break that rule", lintLines[i])
		}
	}
	if hints == 0 {
		t.Errorf("no hint line in\n%s", err)
	}
	for _, want := range []string{
		"grants.json:3:67: grant 2: verb \"refund\" not in policy for pack \"ledger\"\n  hint: the verbs of pack \"ledger\", closest first: \"refunds\",",
		"grants.json:4:41: grant 3: pack \"ledgr\" not in the compiled packs\n  hint: the compiled packs, closest first: \"ledger\"\n",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in\n%s", want, err)
		}
	}
}

// TestReadConfirmIsOneFinding: a row that breaks two rules at once gets
// the finding that names its root cause alone
// (docs/files.md#a-pack-manifestjson-and-policyjson). A read with
// confirm is "is read: confirm is for writes only", never also a
// complaint that its cli[] takes no --confirm; a connect command that is
// read must be write, which makes its confirm right too.
func TestReadConfirmIsOneFinding(t *testing.T) {
	for _, tt := range []struct {
		name, command, row, want string
	}{
		{
			name:    "read with confirm and a cli",
			command: `{"cli": ["mail", "list"]}`,
			row:     `{"operation": "read", "privacy": {"land": "personal"}, "confirm": true}`,
			want:    `policy.json:1:97: verb "list" is read: confirm is for writes only`,
		},
		{
			name:    "connect read with confirm and a cli",
			command: `{"cli": ["mail", "list"], "connect": true}`,
			row:     `{"operation": "read", "privacy": {"land": "personal"}, "confirm": "always"}`,
			want:    `policy.json:1:56: verb "list" establishes a Binding and must be write`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			treetest.Write(t, dir, map[string]string{
				"mail/manifest.json": `{"id": "mail", "commands": {"list": ` + tt.command + `}}`,
				"mail/policy.json":   `{"surface_id": "mail", "verbs": {"list": ` + tt.row + `}}`,
			})
			t.Chdir(dir)
			s := Open([]string{"mail"}, nil)
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			var errs problem.Errors
			if err := s.Lint(); !errors.As(err, &errs) || len(errs) != 1 || errs[0].Error() != "mail/"+tt.want {
				t.Errorf("findings:\n%v\nwant exactly one:\nmail/%s", err, tt.want)
			}
		})
	}
}
