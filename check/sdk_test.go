package check

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fairbench/models"
)

// The schema of docs/external-policy-sdk.md lists exactly the fields the
// protocol's Go types read and write.
func TestSDKSchemaMatchesTheProtocol(t *testing.T) {
	b, err := os.ReadFile("../docs/external-policy-sdk.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## JSON schema")
	block := doc[start:]
	block = block[strings.Index(block, "```json\n")+len("```json\n"):]
	block = block[:strings.Index(block, "```")]
	var schema struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(block), &schema); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	types := map[string]any{
		"request": request{}, "instance": models.Instance{}, "gpu_type": models.GPUType{}, "server_group": models.ServerGroup{},
		"user": models.User{}, "job": models.InstanceJob{}, "job_type": models.JobType{}, "answer": response{},
		"allocation": models.Allocation{}, "assignment": models.Assignment{}, "shared_fraction": models.SharedFraction{},
	}
	for name, v := range types {
		def, ok := schema.Defs[name]
		if !ok {
			t.Errorf("the schema has no %q", name)
			continue
		}
		got := slices.Sorted(maps.Keys(def.Properties))
		if want := jsonFields(reflect.TypeOf(v)); !slices.Equal(got, want) {
			t.Errorf("schema %s lists %v, the Go type has %v", name, got, want)
		}
	}
}

// jsonFields lists the JSON names of a struct's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		if name, _, _ := strings.Cut(tag, ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Both examples answer a request without active jobs ("jobs": null), and
// a request with jobs, with one line each.
func TestSDKExamplesAnswerNullJobs(t *testing.T) {
	for _, cmd := range [][]string{{python(t), "examples/equal_share.py"}, {goExample(t)}} {
		in := `{"protocol":"fairbench-policy/1","id":1,"run":1,"trigger":"round","instance":{"servers":[{"type":"V100","count":2,"gpus_per_server":1}],"users":[{"name":"u1","weight":1}],"jobs":null}}
{"protocol":"fairbench-policy/1","id":2,"run":2,"trigger":"round","instance":{"servers":[{"type":"V100","count":2,"gpus_per_server":1}],"users":[{"name":"u1","weight":1}],"jobs":[{"id":4,"user":"u1","gang":1,"steps":10,"throughputs":{"V100":2}}]}}
`
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Stdin = strings.NewReader(in)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 {
			t.Fatalf("%v: %d answers, want 2:\n%s", cmd, len(lines), out)
		}
		for i, l := range lines {
			var r response
			dec := json.NewDecoder(bytes.NewReader([]byte(l)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil || r.ID == nil || *r.ID != int64(i+1) || r.Allocation == nil || r.Error != nil {
				t.Errorf("%v: answer %d %q: %v", cmd, i+1, l, err)
			}
		}
		if !strings.Contains(lines[1], `"4":{"V100":1}`) && !strings.Contains(lines[1], `"4": {"V100": 1.0}`) {
			t.Errorf("%v: the lone job does not get its whole GPU: %s", cmd, lines[1])
		}
	}
}

// goExample builds the Go example policy.
func goExample(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the Go example needs the go tool: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "equalshare")
	if out, err := exec.Command(goTool, "build", "-o", bin, "./examples/equalshare").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The Go example, checked end to end through the protocol: it keeps its
// claims (for users with one job each); its planted bug is caught.
func TestExternalGoPolicy(t *testing.T) {
	bin := goExample(t)
	claims := oneJobClaims()
	x := NewExternal(bin, 20*time.Second)
	defer x.Close()
	rep, err := Run(x.Subject(claims), Config{Seed: 1, Cases: 40, Bound: 2, Props: []string{Feasible, SharingIncentive, EnvyFree, StrategyProof}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Holds {
			t.Errorf("%s: %s: %s", r.Property, r.Status, r.Reason)
		}
	}
	catchesIgnoredWeights(t, bin+" -ignore-weights")
}
