package replay

import (
	"bytes"
	"strings"
	"testing"
)

func sampleReport() *Report {
	return &Report{
		Replayed: 6, Unchanged: 2, Narrowed: 1, Widened: 2, Changed: 1,
		Skipped: Skipped{OtherPath: 3, Masked: 1},
		Groups: []Group{
			{PackID: "ledger", Kind: "verb", Key: "transfer", From: "land_denied", To: "allowed", Change: Widened, Count: 2, Example: "d-1"},
			{PackID: "mail", Kind: "stimulus", Key: "new|item", From: "allow", To: "confirm_required", Change: Narrowed, Count: 1, Example: "d-2"},
			{PackID: "mail", Kind: "verb", Key: "mail.list", From: "capability_required", To: "land_denied", Change: Changed, Count: 1, Example: "d-3"},
		},
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := WriteJSON(&out, sampleReport()); err != nil {
		t.Fatal(err)
	}
	want := `{
  "replayed": 6,
  "unchanged": 2,
  "narrowed": 1,
  "widened": 2,
  "changed": 1,
  "skipped": {
    "other_path": 3,
    "error": 0,
    "masked": 1,
    "unreadable": 0
  },
  "groups": [
    {
      "pack_id": "ledger",
      "kind": "verb",
      "key": "transfer",
      "from": "land_denied",
      "to": "allowed",
      "change": "widened",
      "count": 2,
      "example": "d-1"
    },
    {
      "pack_id": "mail",
      "kind": "stimulus",
      "key": "new|item",
      "from": "allow",
      "to": "confirm_required",
      "change": "narrowed",
      "count": 1,
      "example": "d-2"
    },
    {
      "pack_id": "mail",
      "kind": "verb",
      "key": "mail.list",
      "from": "capability_required",
      "to": "land_denied",
      "change": "changed",
      "count": 1,
      "example": "d-3"
    }
  ]
}
`
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	WriteJSON(&out, &Report{})
	if !strings.Contains(out.String(), `"groups": []`) {
		t.Fatalf("no groups is not an empty list:\n%s", out.String())
	}
}

func TestWritePretty(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := WritePretty(&out, sampleReport()); err != nil {
		t.Fatal(err)
	}
	want := `CHANGE    COUNT  PACK    KIND      KEY        FROM                 TO                EXAMPLE
widened   2      ledger  verb      transfer   land_denied          allowed           d-1
narrowed  1      mail    stimulus  new|item   allow                confirm_required  d-2
changed   1      mail    verb      mail.list  capability_required  land_denied       d-3

skipped: 3 other_path, 0 error, 1 masked, 0 unreadable
6 replayed: 2 unchanged, 1 narrowed, 2 widened, 1 changed; 4 skipped
`
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	WritePretty(&out, &Report{Replayed: 1, Unchanged: 1})
	if out.String() != "1 replayed: 1 unchanged, 0 narrowed, 0 widened, 0 changed; 0 skipped\n" {
		t.Fatalf("nothing changed, got %q", out.String())
	}
}

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := WriteMarkdown(&out, sampleReport()); err != nil {
		t.Fatal(err)
	}
	want := "**hcp-rego replay**\n\n" +
		"| change | count | pack | kind | key | from | to | example |\n" +
		"| --- | ---: | --- | --- | --- | --- | --- | --- |\n" +
		"| widened | 2 | `ledger` | verb | `transfer` | `land_denied` | `allowed` | `d-1` |\n" +
		"| narrowed | 1 | `mail` | stimulus | `new\\|item` | `allow` | `confirm_required` | `d-2` |\n" +
		"| changed | 1 | `mail` | verb | `mail.list` | `capability_required` | `land_denied` | `d-3` |\n" +
		"\nskipped: 3 other_path, 0 error, 1 masked, 0 unreadable\n\n" +
		"6 replayed: 2 unchanged, 1 narrowed, 2 widened, 1 changed; 4 skipped\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
