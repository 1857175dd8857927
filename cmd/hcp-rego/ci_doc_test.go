package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

const ciPage = "../../docs/ci.md"

// ciBlock is the yaml block of docs/ci.md after marker, as written, and
// the page's line that the block's first line is on.
func ciBlock(t *testing.T, marker string) (string, int) {
	t.Helper()
	data, err := os.ReadFile(ciPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	at := strings.Index(text, marker)
	if at < 0 {
		t.Fatalf("%s: no %s", ciPage, marker)
	}
	open := strings.Index(text[at:], "```yaml\n")
	if open < 0 {
		t.Fatalf("%s: no yaml block after %s", ciPage, marker)
	}
	start := at + open + len("```yaml\n")
	block, _, ok := strings.Cut(text[start:], "```\n")
	if !ok {
		t.Fatalf("%s: the yaml block after %s is not closed", ciPage, marker)
	}
	return block, strings.Count(text[:start], "\n") + 1
}

// lintWorkflow lints a GitHub Actions workflow with actionlint (its
// syntax, keys, expressions, contexts, and the inputs of the popular
// actions it knows; without shellcheck).
func lintWorkflow(t *testing.T, workflow string) []*actionlint.Error {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{StdinFileName: "workflow.yml"})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint("<stdin>", []byte(workflow), nil)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// githubRuns are the run scripts of a workflow's steps.
func githubRuns(t *testing.T, workflow string) []string {
	t.Helper()
	var w struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(workflow), &w); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			runs = append(runs, s.Run)
		}
	}
	return runs
}

// wantCI are the commands (with the flags named) that the issue asks the
// CI examples to run; each must be among the hcp-rego commands found.
var wantCI = map[string][]string{
	"github": {"lint --grants", "test --format --coverage --threshold", "compare --format --fail-on", "matrix --diff", "build --grants", "replay --bundle --format --fail-on"},
	"gitlab": {"lint --grants", "test --format --coverage --threshold", "compare --format --fail-on", "matrix --diff", "build --grants", "replay --bundle --format --fail-on"},
}

// checkCICommands fails t for a refused hcp-rego command and for a
// wanted one that is missing.
func checkCICommands(t *testing.T, kind string, scripts []string) {
	t.Helper()
	found, errs := hcpRegoCommands(scripts)
	for _, err := range errs {
		t.Errorf("%s: %s example: %v", ciPage, kind, err)
	}
	for _, w := range wantCI[kind] {
		if !slices.Contains(found, w) {
			t.Errorf("%s: the %s example runs no hcp-rego %s (it runs %q)", ciPage, kind, w, found)
		}
	}
}

// TestCIGitHubWorkflow lints docs/ci.md's GitHub Actions workflow, as it
// is, with actionlint, and parses every hcp-rego command of its steps.
func TestCIGitHubWorkflow(t *testing.T) {
	workflow, line := ciBlock(t, "<!-- ci: github-actions -->")
	for _, e := range lintWorkflow(t, workflow) {
		t.Errorf("%s:%d:%d: %s [%s]", ciPage, line+e.Line-1, e.Column, e.Message, e.Kind)
	}
	checkCICommands(t, "github", githubRuns(t, workflow))
}

// TestCIGitHubLintFails holds the check to failing: a workflow broken in
// each of these ways must give actionlint errors.
func TestCIGitHubLintFails(t *testing.T) {
	workflow, _ := ciBlock(t, "<!-- ci: github-actions -->")
	for _, tt := range []struct{ name, from, to string }{
		{"an unknown key", "    runs-on: ubuntu-latest\n", "    runs-on: ubuntu-latest\n    timeout: 10\n"},
		{"an unknown input of an action", "          go-version: \"1.26\"\n", "          go-versoin: \"1.26\"\n"},
		{"an unknown context", "${{ github.base_ref }}", "${{ gihub.base_ref }}"},
		{"a step output that is not set", "steps.replay.outputs.code != ''", "steps.replya.outputs.code != ''"},
		{"the compare gate on a step that is not there", "steps.compare.outputs.code != ''", "steps.comapre.outputs.code != ''"},
		{"a broken YAML", "jobs:\n", "jobs:\n  - oops\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			broken := strings.Replace(workflow, tt.from, tt.to, 1)
			if broken == workflow {
				t.Fatalf("the workflow has no %q to break", tt.from)
			}
			if errs := lintWorkflow(t, broken); len(errs) == 0 {
				t.Errorf("actionlint passed the workflow with %s", tt.name)
			}
		})
	}
	if _, errs := hcpRegoCommands([]string{"hcp-rego test --format github --coverge ."}); len(errs) != 1 {
		t.Errorf("a misspelt flag passed: %v", errs)
	}
}

// gitlabJobKeys are the job keywords of GitLab CI's reference
// (docs.gitlab.com/ci/yaml); gitlabTopKeys the global ones. Any other
// top-level key is a job.
var (
	gitlabJobKeys = strings.Fields(`after_script allow_failure artifacts before_script cache coverage dast_configuration
		dependencies environment extends hooks identity id_tokens image inherit interruptible manual_confirmation
		needs pages parallel release resource_group retry rules run script secrets services stage start_in tags
		timeout trigger variables when`)
	gitlabTopKeys = strings.Fields(`default include stages variables workflow`)
)

// checkGitLab checks a .gitlab-ci.yml as far as we can without GitLab:
// it parses; each job uses only job keywords, has a script that is a
// list of strings, and a stage that stages lists. It returns the jobs'
// scripts.
func checkGitLab(pipeline string) ([]string, []error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(pipeline), &doc); err != nil {
		return nil, []error{err}
	}
	var errs []error
	stages, _ := doc["stages"].([]any)
	if def, ok := doc["default"].(map[string]any); ok {
		if s, ok := def["before_script"]; ok && !stringList(s) {
			errs = append(errs, fmt.Errorf("default.before_script: want a list of commands"))
		}
	}
	var scripts []string
	for name, v := range doc {
		if slices.Contains(gitlabTopKeys, name) {
			continue
		}
		job, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("job %s: want a mapping", name))
			continue
		}
		for key := range job {
			if !slices.Contains(gitlabJobKeys, key) {
				errs = append(errs, fmt.Errorf("job %s: unknown keyword %q", name, key))
			}
		}
		script, _ := job["script"].([]any)
		if !stringList(script) {
			errs = append(errs, fmt.Errorf("job %s: script: want a list of commands", name))
		}
		if stage, ok := job["stage"]; ok && !slices.Contains(stages, stage) {
			errs = append(errs, fmt.Errorf("job %s: stage %v is not in stages %v", name, stage, stages))
		}
		for _, s := range script {
			scripts = append(scripts, fmt.Sprint(s))
		}
	}
	return scripts, errs
}

// stringList reports whether v is a non-empty list of strings.
func stringList(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, s := range list {
		if _, ok := s.(string); !ok {
			return false
		}
	}
	return true
}

// TestCIGitLabPipeline checks docs/ci.md's .gitlab-ci.yml (there is no
// GitLab linter to run outside GitLab) and parses every hcp-rego command
// of its scripts.
func TestCIGitLabPipeline(t *testing.T) {
	pipeline, line := ciBlock(t, "<!-- ci: gitlab -->")
	scripts, errs := checkGitLab(pipeline)
	for _, err := range errs {
		t.Errorf("%s:%d: .gitlab-ci.yml: %v", ciPage, line, err)
	}
	checkCICommands(t, "gitlab", scripts)
}

// TestCIGitLabCheckFails holds checkGitLab to failing on a broken
// pipeline.
func TestCIGitLabCheckFails(t *testing.T) {
	pipeline, _ := ciBlock(t, "<!-- ci: gitlab -->")
	for _, tt := range []struct{ name, from, to string }{
		{"a misspelt keyword", "  script:\n", "  scirpt:\n"},
		{"a script that is not a list", "  script:\n    - grants=()", "  script: >\n    grants=()"},
		{"an unknown stage", "  stage: review\n", "  stage: reveiw\n"},
		{"broken YAML", "stages: [test, review]\n", "stages: [test, review\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			broken := strings.Replace(pipeline, tt.from, tt.to, 1)
			if broken == pipeline {
				t.Fatalf("the pipeline has no %q to break", tt.from)
			}
			if _, errs := checkGitLab(broken); len(errs) == 0 {
				t.Errorf("checkGitLab passed the pipeline with %s", tt.name)
			}
		})
	}
}
