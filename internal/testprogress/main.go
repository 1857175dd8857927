// Command testprogress reads `go test -json` on stdin and says, as make
// test runs, which package it is on: a line when a package starts, its
// result when it ends, and a failed package's whole output. It exits 1
// when any package or test failed, or the stream held no result.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// event is one line of `go test -json` (test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// report writes the progress of the events read from r to w, and says
// whether anything failed.
func report(r io.Reader, w io.Writer) (failed bool, err error) {
	output := map[string]*strings.Builder{}
	results := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(w, sc.Text()) // a build error, say: as go test wrote it
			failed = true
			continue
		}
		if output[e.Package] == nil {
			output[e.Package] = &strings.Builder{}
		}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output) // a compile error, as the compiler wrote it
		case e.Action == "start":
			fmt.Fprintf(w, "   %s ...\n", e.Package)
		case e.Action == "output":
			output[e.Package].WriteString(e.Output)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			results++
			failed = failed || e.Action == "fail"
			if e.Action == "fail" {
				fmt.Fprint(w, output[e.Package].String())
			}
			fmt.Fprintf(w, "%-4s %s (%s)\n", map[string]string{"pass": "ok", "fail": "FAIL", "skip": "--"}[e.Action], e.Package, time.Duration(e.Elapsed*float64(time.Second)).Round(10*time.Millisecond))
			delete(output, e.Package)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	return failed || results == 0, nil
}
