// Throwaway: REST latency of several bundles, interleaved.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/hcp-rego/hcp-rego/internal/bench/largeset"
)

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

func main() {
	gen := flag.String("gen", "", "write the large set here and exit")
	opa := flag.String("opa", "", "opa binary")
	flag.Parse()
	if *gen != "" {
		set, err := largeset.Write(*gen, largeset.Spec{Packs: 1000, Verbs: 50, Triggers: 2, Grants: 100_000, GrantFiles: 10, Seed: 1})
		if err != nil {
			panic(err)
		}
		fmt.Println(strings.Join(set.PackDirs[:1], " "), len(set.PackDirs), strings.Join(set.GrantFiles, " "))
		return
	}
	bundles := flag.Args()
	os.WriteFile("/tmp/onerule.rego", []byte("package hcp.authz\n\ndecision := {\"allow\": true} if input.principal.id == \"u5\"\n"), 0o644)
	var urls []string
	for i, b := range append([]string{"/tmp/onerule.rego"}, bundles...) {
		addr := fmt.Sprintf("127.0.0.1:%d", 19100+i)
		args := []string{"run", "--server", "--addr", addr, "--log-level", "error"}
		if strings.HasSuffix(b, ".rego") {
			args = append(args, b)
		} else {
			args = append(args, "--bundle", b)
		}
		cmd := exec.Command(*opa, args...)
		cmd.Start()
		defer cmd.Process.Kill()
		for range 600 {
			if r, err := http.Get("http://" + addr + "/health?bundles"); err == nil && r.StatusCode == 200 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		urls = append(urls, "http://"+addr+"/v1/data/hcp/authz/decision")
	}
	capreq := largeset.BenchInput(false)
	capreq["principal"] = map[string]any{"id": "nobody", "tenant": "acme", "roles": []any{"r999"}}
	inputs := map[string]map[string]any{"allowed": largeset.BenchInput(false), "confirm": largeset.BenchInput(true), "capreq": capreq}
	for _, name := range []string{"allowed", "confirm", "capreq"} {
		body, _ := json.Marshal(map[string]any{"input": inputs[name]})
		lat := make([][]float64, len(urls))
		for i, u := range urls {
			resp, _ := client.Post(u, "application/json", bytes.NewReader(body))
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if i > 0 && name != "x" {
				var d map[string]any
				json.Unmarshal(out, &d)
				r, _ := d["result"].(map[string]any)
				fmt.Printf("  %s %d: %v\n", name, i, r["code"])
			}
			for range 200 {
				resp, _ := client.Post(u, "application/json", bytes.NewReader(body))
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		for range 30 {
			for i, u := range urls {
				for range 100 {
					start := time.Now()
					resp, err := client.Post(u, "application/json", bytes.NewReader(body))
					if err != nil {
						panic(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					lat[i] = append(lat[i], float64(time.Since(start).Microseconds()))
				}
			}
		}
		fmt.Printf("%s:", name)
		for i := range urls {
			slices.Sort(lat[i])
			fmt.Printf(" %.0f", lat[i][len(lat[i])/2])
		}
		fmt.Println(" (p50 µs: one rule, then each bundle)")
	}
}
