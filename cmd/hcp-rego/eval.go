package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/internal/document"
	"github.com/hcp-rego/hcp-rego/internal/explain"
	"github.com/hcp-rego/hcp-rego/internal/policy"
	"github.com/hcp-rego/hcp-rego/internal/problem"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
)

type evalOptions struct {
	policy     policyFlags
	input      string
	format     string
	failOnDeny bool
	explain    bool
	ext        []string
}

func newEvalCommand(s streams) *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval (PACK_DIR... [--grants FILE]... | --bundle FILE) --input FILE|-",
		Short: "Evaluate one decision with the embedded OPA evaluator",
		Long: `Eval prints the decision document (docs/decisions.md) for one input: JSON by
default, or a readable summary with --format pretty. With --bundle it
evaluates that bundle as built, verifying its signature first when
--verification-key is given (a signed bundle without it is decided
unchecked, and a note on stderr says so); a bundle may hold 256 MiB in all
and as much in one file, uncompressed (each entry counting 1 KiB besides its content),
22,369,621 JSON values in the JSON files OPA parses
and 1,048,576 terms in its Rego modules (room for 1,000,000 grants and
10,000 packs), and --max-bundle-bytes raises all four. --ext loads a runtime's
own rules (package hcp.ext: deny and confirm, docs/bundles.md) beside it, and
refuses a symbolic link and a .signatures.json under its path, which
opa run --bundle and opa run read differently.
--explain walks the decision chain step by step in source terms.
--fail-on-deny exits 1 when the call is not allowed.
Any JSON input is decided (garbage is invalid_input); text that is not JSON
is bad input (exit 2).`,
		Example: `  hcp-rego eval testdata/packs --grants testdata/grants/acme.json --input testdata/inputs/confirm.json --explain
  hcp-rego eval --bundle signed.tar.gz --verification-key testdata/keys/rsa.pub --verification-key-id hcp \
    --input testdata/inputs/allowed.json
  echo '{"principal":{"id":"bob","roles":["member"]},"pack_id":"ledger","verb_key":"balance","owner":"bob"}' |
    hcp-rego eval testdata/packs --grants testdata/grants/acme.json --input - --format pretty`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.policy.packs = args
			return runEval(cmd.Context(), s, o)
		},
	}
	addPolicyFlags(cmd, &o.policy, "evaluate this bundle (.tar.gz or folder) instead of packs; repeatable: a sharded build's policy bundle and shards, or its folder")
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "the decision input, a JSON file or - for stdin (required)")
	f.StringVar(&o.format, "format", "json", "output format: json or pretty")
	f.BoolVar(&o.failOnDeny, "fail-on-deny", false, "exit 1 when the call is not allowed")
	f.BoolVar(&o.explain, "explain", false, "walk the chain step by step")
	f.StringArrayVar(&o.ext, "ext", nil, "load a runtime's hcp.ext rules: a .rego file or a folder of them (repeatable)")
	_ = cmd.MarkFlagRequired("input")
	return cmd
}

func runEval(ctx context.Context, s streams, o evalOptions) error {
	if o.format != "json" && o.format != "pretty" {
		return badInput(fmt.Errorf("--format %q: want json or pretty", o.format))
	}
	if err := o.check(); err != nil {
		return badInput(err)
	}
	in, err := o.read(ctx, s.in)
	if err != nil {
		return err
	}
	input, m := in.input, in.policy.Model
	noteUnverified(s.err, in.policy)
	var opts []hcprego.Option
	if o.explain {
		opts = append(opts, hcprego.WithRuntimeGate())
	}
	ev, err := in.policy.Evaluator(ctx, opts...)
	if err != nil {
		return badInput(err)
	}
	res, err := ev.Decide(ctx, input.value)
	if err != nil {
		return err
	}
	var steps []explain.Step
	if o.explain {
		steps = explain.ExplainSharded(bundles.ShardingOf(in.policy.Bundle), m, input.value, res.Decision, res.RuntimeConfirm, explain.InputProblems(input.file, input.root))
	}
	if err := printDecision(s.out, o.format, res.Decision, steps); err != nil {
		return err
	}
	if o.format == "pretty" && !o.explain && res.Decision.Code == "invalid_input" {
		if _, err := io.WriteString(s.out, explain.PrettyReason(explain.InputProblems(input.file, input.root))); err != nil {
			return err
		}
	}
	if o.failOnDeny && !res.Decision.Allow {
		return findings()
	}
	return nil
}

// evalRead is what eval and permissions read before they judge anything.
type evalRead struct {
	input  decisionInput
	policy *policy.Policy
}

// read reads the input, the policy and the runtime's rules, every one
// before any is judged, so that every bad file is reported at once (exit
// 2).
func (o evalOptions) read(ctx context.Context, stdin io.Reader) (*evalRead, error) {
	var errs problem.Errors
	r := &evalRead{}
	var err error
	r.input, err = readInput(stdin, o.input)
	errs.Merge(o.input, err)
	r.policy, err = policy.Read(ctx, o.policy.source(o.ext))
	errs.Merge("", err)
	if len(errs) > 0 {
		return nil, badInput(errs.Err())
	}
	return r, nil
}

// check refuses flags that name two policies, or say how to read a bundle
// that is not read.
func (o evalOptions) check() error {
	if o.policy.mixed() {
		return errors.New("give either --bundle or PACK_DIR... and --grants, not both")
	}
	return o.policy.checkBundleFlags()
}

// decisionInput is the parsed input: its value, and its tree for
// positioned schema messages.
type decisionInput struct {
	file  string
	root  *document.Node
	value any
}

// readInput reads the decision input, a JSON file or "-" for stdin. Any
// JSON value is an input (garbage is decided invalid_input); text that is
// not JSON is bad input. Its values have a budget of their own
// (document.MaxJSONValues), beside the one that the packs and grant files
// share.
func readInput(stdin io.Reader, path string) (decisionInput, error) {
	var data []byte
	var err error
	if path == "-" {
		path = "<stdin>"
		data, err = document.ReadStream(stdin, path)
	} else {
		data, err = document.ReadFile(path)
	}
	if err != nil {
		return decisionInput{}, err
	}
	root, err := document.ParseJSON(path, data, nil)
	if err != nil {
		return decisionInput{}, err
	}
	return decisionInput{file: path, root: root, value: root.Value()}, nil
}

// printDecision writes the decision (and the steps, with --explain).
func printDecision(w io.Writer, format string, d hcprego.Decision, steps []explain.Step) error {
	if format == "json" {
		doc := any(d.Doc)
		if steps != nil {
			doc = map[string]any{"decision": d.Doc, "steps": steps}
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	_, err := io.WriteString(w, explain.Pretty(d, steps))
	return err
}
