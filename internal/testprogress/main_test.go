package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	stream := `{"Action":"start","Package":"a"}
{"Action":"output","Package":"a","Output":"=== RUN TestX\n"}
{"Action":"start","Package":"b"}
{"Action":"pass","Package":"b","Elapsed":0.5}
{"Action":"output","Package":"a","Test":"TestX","Output":"    x_test.go:3: boom\n"}
{"Action":"fail","Package":"a","Test":"TestX"}
{"Action":"fail","Package":"a","Elapsed":1.25}
`
	var out strings.Builder
	failed, err := report(strings.NewReader(stream), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v: want a failure", failed, err)
	}
	want := "   a ...\n   b ...\nok   b (500ms)\n=== RUN TestX\n    x_test.go:3: boom\nFAIL a (1.25s)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if failed, _ := report(strings.NewReader(`{"Action":"start","Package":"a"}`+"\n"+`{"Action":"pass","Package":"a"}`+"\n"), &out); failed {
		t.Error("a passing stream reported as failed")
	}
	out.Reset()
	build := `{"ImportPath":"c [c.test]","Action":"build-output","Output":"c/x.go:2:12: undefined: y\n"}
{"ImportPath":"c [c.test]","Action":"build-fail"}
{"Action":"start","Package":"c"}
{"Action":"fail","Package":"c","FailedBuild":"c [c.test]"}
`
	if failed, _ := report(strings.NewReader(build), &out); !failed || !strings.Contains(out.String(), "c/x.go:2:12: undefined: y") {
		t.Errorf("a build failure: failed %v, output %q: want it failed and the compiler's words", failed, out.String())
	}
	if failed, _ := report(strings.NewReader(""), &out); !failed {
		t.Error("an empty stream (go test never ran) reported as passed")
	}
}
