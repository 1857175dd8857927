package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	opaversion "github.com/open-policy-agent/opa/v1/version"
	"github.com/spf13/cobra"
)

// version and commit are stamped by make build and make release
// (-ldflags "-X main.version=... -X main.commit=..."). A binary built
// without them (go install, go build) says what its build information
// holds instead.
var (
	version string
	commit  string
)

func newVersionCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the hcp-rego version and commit, and the OPA it embeds",
		Example: "  hcp-rego version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, c := buildVersion(version, commit)
			fmt.Fprintf(s.out, "hcp-rego %s\ncommit %s\nopa %s\ngo %s %s/%s\n", v, c, opaversion.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

// buildVersion is the version and commit to print: the stamped ones, else
// the module version that go install records ("(devel)" for a build in a
// clone) and the VCS revision that go build records ("unknown" without
// one; "-dirty" when the tree had changes).
func buildVersion(stampedVersion, stampedCommit string) (string, string) {
	v, c := stampedVersion, stampedCommit
	info, ok := debug.ReadBuildInfo()
	if v == "" {
		v = "(devel)"
		if ok && info.Main.Version != "" {
			v = info.Main.Version
		}
	}
	if c == "" {
		c = "unknown"
		if ok {
			c = vcsRevision(info.Settings, c)
		}
	}
	return v, c
}

// vcsRevision is the vcs.revision of settings, marked "-dirty" when
// vcs.modified, else fallback.
func vcsRevision(settings []debug.BuildSetting, fallback string) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return fallback
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
