package policy

import (
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/hcp-rego/hcp-rego/internal/problem"
)

// inBundle names, in an error of the evaluator's New (rego.New), the modules that came from bundle b
// as modules inside it: "b.tar.gz: hcp/authz/x.rego:3:7: message", where
// name is the bundle's path (or what stands for it, as "the compiled
// bundle"), written as it is, first on its line (a caller quotes a path
// that could start a line of its own, such as "::error::x"), and a module
// path that holds a control character is quoted.
// They stay sorted by module, line and column.
// A runtime's own modules keep their file names.
//
// When runtime modules were loaded (ext) and an error is inside the
// bundle, a line says that those may be at fault: a runtime's rule that
// type-checks alone (deny as a function, say) breaks the library's use of
// data.hcp.ext, where OPA reports it.
func inBundle(err error, b *bundle.Bundle, name string, ext bool) error {
	inside := map[string]bool{}
	for _, m := range b.Modules {
		inside[m.Path] = true
	}
	var errs, out problem.Errors
	errs.Merge("", err)
	anyInside := false
	for _, e := range errs {
		if !inside[e.File] {
			out = append(out, e)
			continue
		}
		anyInside = true
		out = append(out, problem.InModule(name, e))
	}
	if ext && anyInside {
		out.Add("--ext", problem.Pos{}, "the runtime's modules, loaded beside %s, may be at fault: deny and confirm in package hcp.ext must be sets of strings", name)
	}
	return out.Err()
}
