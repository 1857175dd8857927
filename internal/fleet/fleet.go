// Package fleet asks OPA sidecars which revision of a bundle each runs,
// for `hcp-rego status` (docs/fleet.md): a rollout is done when every
// sidecar runs the revision pushed, and a sidecar that cannot be asked is
// not done.
//
// A sidecar with OPA's status plugin on answers GET /v1/status with the
// bundle's active revision, last successful activation and last error
// (a refused signature, say). Without it, the revision comes from
// GET /v1/data/system/bundles and whether every bundle is active from
// GET /health?bundles; OPA keeps no activation time there.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hcp-rego/hcp-rego/internal/printable"
)

// Sidecar is what one OPA says about the bundle.
type Sidecar struct {
	// URL is the sidecar's base address, as given.
	URL string `json:"url"`
	// Revision is the bundle's active revision, "" when none is.
	Revision string `json:"revision"`
	// LastActivation is when the bundle was last activated (RFC 3339),
	// "" when unknown: never, or no status plugin.
	LastActivation string `json:"last_activation,omitempty"`
	// LastError is the bundle's last download or activation error, or
	// why the sidecar could not be asked; "" for none.
	LastError string `json:"last_error,omitempty"`
	// Reachable is false when the sidecar could not be asked.
	Reachable bool `json:"reachable"`
	// Source names the API that answered: "status" (/v1/status) or
	// "bundles" (/v1/data/system/bundles and /health?bundles).
	Source string `json:"source,omitempty"`
}

// Client asks sidecars.
type Client struct {
	// HTTP makes the requests; nil means one with Timeout.
	HTTP *http.Client
	// Bundle names the bundle that Ask and Watch ask about; AskEach and
	// WatchEach are given theirs.
	Bundle string
}

// requestTimeout bounds each request to a sidecar; maxBody bounds what is
// read of an answer (the status holds metrics, the manifest metadata).
const (
	requestTimeout = 5 * time.Second
	maxBody        = 8 << 20
)

// CheckURL refuses a sidecar address that is not an http or https base
// address. An address that may hold a user name or password ("@") is not
// echoed.
func CheckURL(raw string) error {
	shown := fmt.Sprintf("%q", raw)
	if strings.Contains(raw, "@") {
		shown = "(not shown: it holds a user name or password)"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil, u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("sidecar URL %s: want http://host:port or https://host:port", shown)
	case u.User != nil:
		return fmt.Errorf("sidecar URL %s: want http://host:port, without credentials", shown)
	case strings.ContainsAny(raw, "?#"):
		return fmt.Errorf("sidecar URL %s: want a base address, without a query or fragment", shown)
	case u.Hostname() == "" || !validPort(u.Port()):
		return fmt.Errorf("sidecar URL %s: want http://host:port with a host name and a port from 1 to 65535", shown)
	}
	return nil
}

// validPort reports whether port, as a URL gives it, is absent (the
// scheme's) or a number from 1 to 65535.
func validPort(port string) bool {
	if port == "" {
		return true
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// maxAsking is how many sidecars are asked at once.
const maxAsking = 64

// Ask asks every sidecar about c.Bundle, maxAsking at a time, and returns
// their rows in the order of urls. A sidecar not heard from when ctx ends
// is a row that timed out.
func (c Client) Ask(ctx context.Context, urls []string) []Sidecar {
	return c.AskEach(ctx, urls, []string{c.Bundle})[0]
}

// AskEach asks every sidecar about each bundle of names, as Ask asks
// about one, each sidecar once for them all where its status plugin
// answers: rows[i][j] is what the sidecar urls[j] says of the bundle
// names[i].
func (c Client) AskEach(ctx context.Context, urls, names []string) [][]Sidecar {
	bySidecar := make([][]Sidecar, len(urls))
	sem := make(chan struct{}, maxAsking)
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			bySidecar[i] = c.askOne(ctx, u, names)
		}()
	}
	wg.Wait()
	rows := make([][]Sidecar, len(names))
	for i := range names {
		rows[i] = make([]Sidecar, len(urls))
		for j := range urls {
			rows[i][j] = bySidecar[j][i]
		}
	}
	return rows
}

// askOne asks one sidecar about each bundle of names: its status plugin
// first, else the bundle's data and the sidecar's health; a sidecar
// without a bundle is told which it has. It returns a row a bundle.
func (c Client) askOne(ctx context.Context, base string, names []string) []Sidecar {
	rows := make([]Sidecar, len(names))
	for i := range rows {
		rows[i].URL = base
	}
	base = strings.TrimRight(base, "/")
	statuses, err := c.status(ctx, base, names)
	if err != nil && !errors.Is(err, errNoStatusPlugin) {
		for i := range rows {
			rows[i].LastError = err.Error()
		}
		return rows
	}
	var rest []int // the bundles the status plugin does not report
	for i := range names {
		if st := statuses[names[i]]; st != nil {
			rows[i].Reachable, rows[i].Source = true, "status"
			rows[i].fromStatus(st)
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) > 0 {
		c.askData(ctx, base, names, rows, rest)
	}
	return rows
}

// askData fills the rows of the bundles rest (indexes into names and
// rows) from the sidecar's bundle data and health: with no status
// plugin, or one that does not list the bundle (a bundle loaded from a
// file, opa run --bundle PATH, is not the plugin's to report, and its
// data is).
func (c Client) askData(ctx context.Context, base string, names []string, rows []Sidecar, rest []int) {
	var absent []int
	for _, i := range rest {
		rows[i].Source = "bundles"
		rev, found, err := c.revision(ctx, base, names[i])
		if err != nil {
			rows[i].LastError = err.Error()
			continue
		}
		rows[i].Revision, rows[i].Reachable = rev, true
		if !found {
			absent = append(absent, i)
		}
	}
	asked := slices.DeleteFunc(slices.Clone(rest), func(i int) bool { return !rows[i].Reachable })
	if len(asked) == 0 {
		return
	}
	unhealthy, err := c.health(ctx, base)
	for _, i := range asked {
		if err != nil {
			rows[i].Reachable, rows[i].LastError = false, err.Error()
		} else {
			rows[i].LastError = unhealthy
		}
	}
	if err != nil || unhealthy != "" || len(absent) == 0 {
		return
	}
	have, err := c.bundleNames(ctx, base)
	for _, i := range absent {
		rows[i].LastError = absentError(names[i], have, err)
	}
}

// bundleStatus is a bundle's entry in OPA's /v1/status (OPA's
// v1/plugins/bundle Status).
type bundleStatus struct {
	ActiveRevision           string           `json:"active_revision"`
	LastSuccessfulActivation time.Time        `json:"last_successful_activation"`
	Code                     string           `json:"code"`
	Message                  string           `json:"message"`
	Errors                   []jsontext.Value `json:"errors"`
}

// fromStatus fills the row from the bundle's status.
func (s *Sidecar) fromStatus(st *bundleStatus) {
	s.Revision = st.ActiveRevision
	if !st.LastSuccessfulActivation.IsZero() {
		s.LastActivation = st.LastSuccessfulActivation.UTC().Format(time.RFC3339)
	}
	s.LastError = statusError(st)
}

// statusError is the bundle status's error on one line, "" for none.
func statusError(st *bundleStatus) string {
	if st.Code == "" && st.Message == "" {
		return ""
	}
	parts := []string{st.Message}
	for _, e := range st.Errors {
		var pe struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e, &pe) == nil && pe.Message != "" {
			parts = append(parts, pe.Message)
		}
	}
	return oneLine(strings.Join(parts, ": "))
}

// errNoStatusPlugin is status's error when the sidecar runs without its
// status plugin.
var errNoStatusPlugin = errors.New("status plugin not enabled")

// status GETs /v1/status and returns the entries of the bundles names,
// by name; a bundle it does not list has none.
func (c Client) status(ctx context.Context, base string, names []string) (map[string]*bundleStatus, error) {
	var doc struct {
		Result struct {
			Bundles map[string]jsontext.Value `json:"bundles"`
		} `json:"result"`
	}
	code, err := c.get(ctx, base+"/v1/status", &doc)
	switch {
	case err != nil:
		return nil, err
	case code == http.StatusInternalServerError || code == http.StatusNotFound:
		return nil, errNoStatusPlugin
	case code != http.StatusOK:
		return nil, fmt.Errorf("GET /v1/status answered %d %s", code, http.StatusText(code))
	}
	// Only the bundles asked about are read: another bundle's entry, odd
	// as it may be, is no concern of their rows.
	statuses := map[string]*bundleStatus{}
	for _, name := range names {
		raw, listed := doc.Result.Bundles[name]
		if !listed {
			continue
		}
		var st *bundleStatus
		if json.Unmarshal(raw, &st) != nil {
			return nil, fmt.Errorf("GET /v1/status: the status of bundle %s is not what OPA writes", printable.Quote(strconv.Quote(name)))
		}
		statuses[name] = st
	}
	return statuses, nil
}

// revision GETs the bundle's manifest revision from
// /v1/data/system/bundles; found is false when the sidecar has no active
// bundle of that name (OPA answers no result).
func (c Client) revision(ctx context.Context, base, name string) (rev string, found bool, err error) {
	var doc struct {
		Result *struct {
			Manifest struct {
				Revision string `json:"revision"`
			} `json:"manifest"`
		} `json:"result"`
	}
	path := "/v1/data/system/bundles/" + url.PathEscape(name)
	code, err := c.get(ctx, base+path, &doc)
	if err != nil {
		return "", false, err
	}
	if code != http.StatusOK {
		return "", false, fmt.Errorf("GET %s answered %d %s", path, code, http.StatusText(code))
	}
	if doc.Result == nil {
		return "", false, nil
	}
	return doc.Result.Manifest.Revision, true, nil
}

// health GETs /health?bundles and returns its error when not every
// bundle is active.
func (c Client) health(ctx context.Context, base string) (string, error) {
	var doc struct {
		Error string `json:"error"`
	}
	code, err := c.get(ctx, base+"/health?bundles", &doc)
	switch {
	case err != nil:
		return "", err
	case code == http.StatusOK:
		return "", nil
	case doc.Error != "":
		return "health: " + oneLine(doc.Error), nil
	}
	return fmt.Sprintf("health: %d %s", code, http.StatusText(code)), nil
}

// get GETs u and decodes a JSON answer into doc (an error answer's body
// is decoded when it is JSON), returning the status code. Members are
// read by OPA's exact names: "Active_Revision" is not OPA's
// "active_revision", and an answer that names a member twice in one
// object, anywhere, is refused, since a reader keeping either would say
// what OPA did not (encoding/json matched names in any case and kept the
// last of two).
func (c Client) get(ctx context.Context, u string, doc any) (int, error) {
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: requestTimeout, CheckRedirect: noRedirects}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, unreachable(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return 0, unreachable(err)
	}
	if len(body) > maxBody {
		return 0, fmt.Errorf("GET %s: the answer is larger than %d MiB", req.URL.Path, maxBody>>20)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return 0, fmt.Errorf("GET %s answered %d %s, a redirect: status follows none, give the sidecar's own address", req.URL.Path, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	err = json.Unmarshal(body, doc)
	var syntax *jsontext.SyntacticError
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &syntax):
		return 0, fmt.Errorf("GET %s: the answer names %s twice in one object: not what OPA answers", req.URL.Path, printable.Quote(strconv.Quote(string(syntax.JSONPointer))))
	case err == nil || resp.StatusCode != http.StatusOK:
		return resp.StatusCode, nil
	case jsontext.Value(body).IsValid(jsontext.AllowDuplicateNames(true)):
		return 0, fmt.Errorf("GET %s: the answer is JSON, but not what OPA answers", req.URL.Path)
	}
	return 0, fmt.Errorf("GET %s: the answer is not JSON: not an OPA?", req.URL.Path)
}

// noRedirects makes a client return a redirect as its answer: a sidecar
// that sends its caller elsewhere would have another server's revision
// reported as its own.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// unreachable says, in a few words, why a sidecar could not be asked.
func unreachable(err error) error {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("unreachable: connection refused")
	case errors.As(err, &dnsErr):
		return errors.New("unreachable: cannot resolve its host name")
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return errors.New("unreachable: timed out")
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	return errors.New("unreachable: " + oneLine(err.Error()))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// maxErrorText bounds an error a sidecar reports, on one line.
const maxErrorText = 300

func oneLine(s string) string { return printable.Line(s, maxErrorText) }
