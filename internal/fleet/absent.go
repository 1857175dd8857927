package fleet

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// maxNamesShown bounds the bundle names an absent bundle's row lists.
const maxNamesShown = 5

// absentError is the row's error for a sidecar that has no bundle name:
// it names the bundles the sidecar has (have, or why they could not be
// listed, err), and the --bundle to pass. The name is often not the one
// configured: `opa run --bundle cal.tar.gz` names its bundle by that
// path.
func absentError(name string, have []string, err error) string {
	msg := fmt.Sprintf("no bundle %s here", quoteName(name))
	switch {
	case err != nil:
		return oneLine(msg + " (its bundles could not be listed: " + err.Error() + ")")
	case len(have) == 0:
		return msg + ": the sidecar has no bundle active"
	case len(have) == 1:
		return oneLine(msg + ": the sidecar has one, " + quoteName(have[0]) + " (opa run --bundle PATH names a bundle by its path): " + passFlag(have[0]))
	}
	shown := make([]string, 0, maxNamesShown)
	for _, n := range have[:min(len(have), maxNamesShown)] {
		shown = append(shown, quoteName(n))
	}
	list := strings.Join(shown, ", ")
	if more := len(have) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return oneLine(msg + ": the sidecar has " + list + ": pass --bundle with the name of ours")
}

// bundleNames GETs the names of the bundles the sidecar has active, from
// /v1/data/system/bundles, sorted.
func (c Client) bundleNames(ctx context.Context, base string) ([]string, error) {
	var doc struct {
		Result map[string]jsontext.Value `json:"result"`
	}
	const path = "/v1/data/system/bundles"
	code, err := c.get(ctx, base+path, &doc)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %d %s", path, code, http.StatusText(code))
	}
	return slices.Sorted(maps.Keys(doc.Result)), nil
}

// quoteName is a bundle name in a message: Go-quoted, so printable.
func quoteName(name string) string { return printable.Quote(strconv.Quote(name)) }

// shellWord is a name a shell takes as one word as it is written.
var shellWord = regexp.MustCompile(`^[A-Za-z0-9._/:@%+=,-]+$`)

// passFlag says which --bundle to pass for name: the flag as a command
// line takes it, when name needs no quoting.
func passFlag(name string) string {
	if shellWord.MatchString(name) {
		return "pass --bundle " + name
	}
	return "pass --bundle with that name"
}
