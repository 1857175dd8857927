package main

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	opaversion "github.com/open-policy-agent/opa/v1/version"
)

// runVersion runs hcp-rego version with main.version and main.commit set
// as -ldflags -X would set them.
func runVersion(t *testing.T, v, c string) string {
	t.Helper()
	oldV, oldC := version, commit
	version, commit = v, c
	defer func() { version, commit = oldV, oldC }()
	var out, errs bytes.Buffer
	if code := run([]string{"version"}, streams{out: &out, err: &errs}); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	return out.String()
}

// TestVersionStamped: what make build and make release stamp is printed
// as stamped, with the OPA that is linked in and the platform.
func TestVersionStamped(t *testing.T) {
	got := runVersion(t, "v1.4.0-3-g0123abc-dirty", "0123abc4567890def0123abc4567890def012345")
	want := fmt.Sprintf("hcp-rego v1.4.0-3-g0123abc-dirty\ncommit 0123abc4567890def0123abc4567890def012345\nopa %s\ngo %s %s/%s\n",
		opaversion.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if opaversion.Version != "1.22.3" {
		t.Errorf("OPA %s is linked in; the docs and go.mod say 1.22.3", opaversion.Version)
	}
}

// TestVersionUnstamped: a build without the stamps (go build, go install)
// falls back to its build information: the module version go install
// records, else "(devel)", and the VCS revision, else "unknown".
func TestVersionUnstamped(t *testing.T) {
	wantV, wantC := "(devel)", "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			wantV = info.Main.Version
		}
		wantC = vcsRevision(info.Settings, wantC)
	}
	got := runVersion(t, "", "")
	if !strings.HasPrefix(got, "hcp-rego "+wantV+"\ncommit "+wantC+"\nopa ") {
		t.Errorf("got:\n%s\nwant hcp-rego %s, commit %s", got, wantV, wantC)
	}
}

func TestVCSRevision(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "abc"}
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"none", nil, "unknown"},
		{"clean", []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "false"}}, "abc"},
		{"dirty", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, rev}, "abc-dirty"},
		{"modified without a revision", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := vcsRevision(tt.settings, "unknown"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
