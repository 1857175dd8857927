package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hcp-rego/hcp-rego/bundles"
	"github.com/hcp-rego/hcp-rego/compile"
	hcprego "github.com/hcp-rego/hcp-rego/rego"
	"github.com/hcp-rego/hcp-rego/source"
)

type evalOptions struct {
	packs      []string
	grants     []string
	input      string
	format     string
	failOnDeny bool
	explain    bool
}

func newEvalCommand(s streams) *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval (PACK_DIR... [--grants FILE]... | --bundle FILE) --input FILE|-",
		Short: "Evaluate one decision with the embedded OPA evaluator",
		Long: `Eval prints the decision document of SPEC §3.6 for one input: JSON by
default, or a readable summary with --format pretty. --fail-on-deny exits 1
when the call is not allowed.`,
		Example: `  hcp-rego eval testdata/packs --grants testdata/grants/acme.json --input call.json
  echo '{"principal":{"id":"alice"},"pack_id":"ledger","verb_key":"balance","owner":"alice"}' |
    hcp-rego eval testdata/packs --grants testdata/grants/defaults.json --input -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.packs = args
			return runEval(cmd.Context(), s, o)
		},
	}
	cmd.Flags().StringArrayVar(&o.grants, "grants", nil, "a grant file (repeatable; grants add up)")
	cmd.Flags().StringVar(&o.input, "input", "", "the decision input, a JSON file or - for stdin (required)")
	cmd.Flags().StringVar(&o.format, "format", "json", "output format: json or pretty")
	cmd.Flags().BoolVar(&o.failOnDeny, "fail-on-deny", false, "exit 1 when the call is not allowed")
	_ = cmd.MarkFlagRequired("input")
	return cmd
}

func runEval(ctx context.Context, s streams, o evalOptions) error {
	if o.format != "json" && o.format != "pretty" {
		return badInput(fmt.Errorf("--format %q: want json or pretty", o.format))
	}
	input, err := readInput(s.in, o.input)
	if err != nil {
		return badInput(err)
	}
	m, err := compile.Checked(o.packs, o.grants)
	if err != nil {
		return badInput(err)
	}
	b, err := bundles.Assemble(m, "")
	if err != nil {
		return err
	}
	ev, err := hcprego.New(ctx, b)
	if err != nil {
		return err
	}
	res, err := ev.Decide(ctx, input)
	if err != nil {
		return err
	}
	out, _ := json.MarshalIndent(res.Decision, "", "  ")
	fmt.Fprintln(s.out, string(out))
	if o.failOnDeny && res.Decision["allow"] != true {
		return findings()
	}
	return nil
}

// readInput reads the decision input, a JSON file or "-" for stdin. Any
// JSON value is an input (garbage is decided invalid_input); text that is
// not JSON is bad input.
func readInput(stdin io.Reader, path string) (any, error) {
	var data []byte
	var err error
	if path == "-" {
		path = "<stdin>"
		data, err = io.ReadAll(io.LimitReader(stdin, source.MaxFileBytes+1))
		if err == nil && len(data) > source.MaxFileBytes {
			err = &source.Error{File: path, Msg: "input is larger than the limit"}
		}
	} else {
		data, err = source.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	root, err := source.ParseJSON(path, data)
	if err != nil {
		return nil, err
	}
	return root.Value(), nil
}
