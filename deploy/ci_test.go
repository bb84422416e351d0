package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// gateCommand is what `make gate` runs; the CI files must run `make gate`,
// so that the gate on a pull request is exactly what `make test` runs.
var gateCommand = regexp.MustCompile(`(?m)^gate: build\n\t\./\$\(BIN\) check --matrix --baseline check/baseline\.json (--skip \$\(GATE_SKIP\) )?--out \$\(GATE_OUT\) --junit \$\(GATE_OUT\)/check-gate\.xml`)

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func TestMakefileGateIsTestedByMakeTest(t *testing.T) {
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	mk := string(b)
	if !gateCommand.MatchString(mk) {
		t.Fatalf("the Makefile's gate target does not run the baseline gate:\n%s", mk)
	}
	test := mk[strings.Index(mk, "\ntest:"):]
	test = test[:strings.Index(test, "\n\n")]
	if !strings.Contains(test, "$(MAKE) --no-print-directory gate") {
		t.Errorf("make test does not run make gate:\n%s", test)
	}
	if _, err := os.Stat("../check/baseline.json"); err != nil {
		t.Errorf("the gate's baseline: %v", err)
	}
}

func TestGitHubWorkflowRunsTheGate(t *testing.T) {
	doc := readYAML(t, "ci/github-actions.yml")
	on, _ := doc["on"].(map[string]any)
	if _, ok := on["pull_request"]; !ok {
		t.Errorf("the workflow does not run on pull requests: %v", on)
	}
	jobs := doc["jobs"].(map[string]any)
	var runs []string
	for _, j := range jobs {
		for _, s := range j.(map[string]any)["steps"].([]any) {
			if r, ok := s.(map[string]any)["run"].(string); ok {
				runs = append(runs, strings.TrimSpace(r))
			}
		}
	}
	if len(runs) != 1 || runs[0] != "make gate" {
		t.Errorf("the workflow runs %q, want exactly make gate", runs)
	}
}

func TestGitLabJobRunsTheGate(t *testing.T) {
	doc := readYAML(t, "ci/gitlab-ci.yml")
	job, ok := doc["fairness-gate"].(map[string]any)
	if !ok {
		t.Fatalf("no fairness-gate job: %v", doc)
	}
	if got := toStrings(job["script"]); len(got) != 1 || got[0] != "make gate" {
		t.Errorf("the job runs %q, want exactly make gate", got)
	}
	rules := toStringsAt(job["rules"], "if")
	if !strings.Contains(strings.Join(rules, " "), "merge_request_event") {
		t.Errorf("the job does not run on merge requests: %v", rules)
	}
	junit := job["artifacts"].(map[string]any)["reports"].(map[string]any)["junit"]
	if junit != "out/gate/check-gate.xml" {
		t.Errorf("junit report %v, want the gate's out/gate/check-gate.xml", junit)
	}
}

func toStringsAt(v any, key string) []string {
	var out []string
	for _, x := range v.([]any) {
		if s, ok := x.(map[string]any)[key].(string); ok {
			out = append(out, s)
		}
	}
	return out
}
