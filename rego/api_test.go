package rego_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAPITakesNoInternalType holds the three API packages to what a
// caller outside this module can call: no exported function or method
// takes a parameter whose type names a type of an internal package,
// which such a caller cannot import, and so could pass only nil or a
// zero value. (A result or field of such a type can still be read.)
func TestAPITakesNoInternalType(t *testing.T) {
	for _, dir := range []string{"../compile", ".", "../bundles"} {
		for _, found := range internalParams(t, dir) {
			t.Errorf("%s", found)
		}
	}
}

// internalParams lists, as "file:line: Name takes pkg.Type", each
// exported function or method of the package in dir that takes a type of
// an internal package.
func internalParams(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		internal := internalImports(file)
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || (fn.Recv != nil && !ast.IsExported(receiverName(fn.Recv))) {
				continue
			}
			ast.Inspect(fn.Type.Params, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] {
						found = append(found, fset.Position(fn.Pos()).String()+": "+fn.Name.Name+" takes "+x.Name+"."+sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
	return found
}

// internalImports are the names a file gives the internal packages it
// imports.
func internalImports(file *ast.File) map[string]bool {
	internal := map[string]bool{}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains("/"+p+"/", "/internal/") {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		internal[name] = true
	}
	return internal
}

// receiverName is the name of a method's receiver type.
func receiverName(recv *ast.FieldList) string {
	ty := recv.List[0].Type
	if star, ok := ty.(*ast.StarExpr); ok {
		ty = star.X
	}
	if idx, ok := ty.(*ast.IndexExpr); ok {
		ty = idx.X
	}
	if id, ok := ty.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestDocsSayWhereExamplesShow holds docs/rego.md's word on the API
// packages' examples to what the tools do: each package has a runnable
// Example (one with an Output comment, which go test runs), and the page
// names no tool as showing them that does not: plain `go doc` prints
// none.
func TestDocsSayWhereExamplesShow(t *testing.T) {
	page, err := os.ReadFile("../docs/rego.md")
	if err != nil {
		t.Fatal(err)
	}
	said := regexp.MustCompile("(?s)Example`[^.]*?`go doc` show")
	out, err := exec.Command("go", "doc", "-all", ".").Output()
	if err != nil {
		t.Fatalf("go doc -all: %v", err)
	}
	if said.Match(page) && !strings.Contains(string(out), "Example") {
		t.Errorf("docs/rego.md says `go doc` shows the examples, and go doc -all prints none:\n%s", said.Find(page))
	}
	for _, dir := range []string{"../compile", ".", "../bundles"} {
		src, err := os.ReadFile(filepath.Join(dir, "example_test.go"))
		if err != nil || !regexp.MustCompile(`(?m)^func Example\w*\(\) \{(?s:.*?)// Output:`).Match(src) {
			t.Errorf("%s: no runnable Example (%v)", dir, err)
		}
	}
}
