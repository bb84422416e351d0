package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A valid base the cases below break one key of; line numbers in the wants
// count from the first line of each case's text.
const okCluster = `cluster:
  servers:
    - {type: V100, count: 2, gpus_per_server: 4}
    - {type: P100, count: 2, gpus_per_server: 4}
`

func TestBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		yaml  string
		wants []string
	}{
		{"empty file", "", []string{"bad.yaml: empty scenario"}},
		{"only a comment", "# nothing\n", []string{"bad.yaml: empty scenario"}},
		{"not a mapping", "- a\n- b\n", []string{"bad.yaml:1: must be a mapping"}},
		{"malformed indentation", "cluster:\n  servers:\n  - {type: V100}\n   oops: 1\n",
			[]string{"bad.yaml:2: malformed YAML: did not find expected key (in the construct that starts on this line)"}},
		{"tab indentation", "cluster:\n\tservers: []\n", []string{"bad.yaml:2: malformed YAML"}},
		{"duplicate key", okCluster + "seed: 1\nseed: 2\n", []string{"bad.yaml:6: seed: duplicate key (first at line 5)"}},
		{"unknown top-level key", okCluster + "polices: [fifo]\n",
			[]string{"bad.yaml:5: polices: unknown key", "known keys here: calibration, cluster,"}},
		{"unknown nested key", okCluster + "workload: {jobz: 3}\n", []string{"bad.yaml:5: workload.jobz: unknown key"}},
		{"no cluster", "seed: 1\n", []string{"bad.yaml: cluster.servers: required"}},
		{"servers not a list", "cluster:\n  servers: {type: V100}\n", []string{"bad.yaml:2: cluster.servers: must be a list"}},
		{"unknown GPU type", "cluster:\n  servers:\n    - {type: A200, gpus_per_server: 4}\n",
			[]string{"bad.yaml:3: cluster.servers[0].type: unknown GPU type \"A200\" (known: K80, P100, V100, T4)"}},
		{"missing GPU type", "cluster:\n  servers:\n    - {gpus_per_server: 4}\n",
			[]string{"bad.yaml:3: cluster.servers[0].type: required"}},
		{"zero GPUs per server", "cluster:\n  servers:\n    - {type: V100, count: 2, gpus_per_server: 4}\n    - {type: K80, count: 2, gpus_per_server: 0}\n",
			[]string{"bad.yaml:4: cluster.servers[1].gpus_per_server: must be ≥ 1"}},
		{"zero GPUs in the cluster", "cluster:\n  servers:\n    - {type: V100, count: 0, gpus_per_server: 4}\n",
			[]string{"bad.yaml:2: cluster.servers: the cluster has zero GPUs"}},
		{"negative count", "cluster:\n  servers:\n    - {type: V100, count: -1, gpus_per_server: 4}\n",
			[]string{"bad.yaml:3: cluster.servers[0].count: must not be negative, got -1"}},
		{"count not a number", "cluster:\n  servers:\n    - {type: V100, count: four, gpus_per_server: 4}\n",
			[]string{"bad.yaml:3: cluster.servers[0].count: must be a whole number, got \"four\""}},
		{"count quoted", "cluster:\n  servers:\n    - {type: V100, count: \"4\", gpus_per_server: 4}\n",
			[]string{"cluster.servers[0].count: must be a whole number, got \"4\""}},
		{"fractional count", "cluster:\n  servers:\n    - {type: V100, count: 1.5, gpus_per_server: 4}\n",
			[]string{"bad.yaml:3: cluster.servers[0].count: must be a whole number, got 1.5"}},
		{"round zero", okCluster + "round_seconds: 0\n", []string{"bad.yaml:5: round_seconds: must be between 1 and 86400 seconds (a day), got 0"}},
		{"round negative", okCluster + "round_seconds: -360\n", []string{"bad.yaml:5: round_seconds: must be between 1 and 86400 seconds (a day), got -360"}},
		{"round fractional", okCluster + "round_seconds: 0.5\n", []string{"bad.yaml:5: round_seconds: must be a whole number, got 0.5"}},
		{"round infinite", okCluster + "round_seconds: .inf\n", []string{"bad.yaml:5: round_seconds: must be a finite whole number"}},
		{"NaN weight", okCluster + "users:\n  - {name: a, weight: .nan}\n", []string{"bad.yaml:6: users[0].weight: must be a finite number, got .nan"}},
		{"zero weight", okCluster + "users:\n  - {name: a, weight: 0}\n", []string{"bad.yaml:6: users[0].weight: must be > 0, got 0"}},
		{"negative weight", okCluster + "users:\n  - {name: a, weight: -2}\n", []string{"users[0].weight: must be > 0, got -2"}},
		{"duplicate users", okCluster + "users:\n  - {name: a}\n  - {name: b}\n  - {name: a}\n",
			[]string{"bad.yaml:8: users[2].name: duplicate user \"a\" (also users[0])"}},
		{"user without name", okCluster + "users:\n  - {weight: 2}\n", []string{"bad.yaml:6: users[0].name: required"}},
		{"users and user_count", okCluster + "users: [{name: a}]\nuser_count: 3\n",
			[]string{"bad.yaml:6: user_count: users and user_count are mutually exclusive"}},
		{"negative user_count", okCluster + "user_count: -3\n", []string{"bad.yaml:5: user_count: must be ≥ 1, got -3"}},
		{"empty policies", okCluster + "policies: []\n", []string{"bad.yaml:5: policies: empty list"}},
		{"duplicate policies", okCluster + "policies: [fifo, sjf, fifo]\n", []string{"bad.yaml:5: policies[2]: duplicate policy \"fifo\""}},
		{"empty policy name", okCluster + "policies: [fifo, \"\"]\n", []string{"policies[1]: empty policy name"}},
		{"options for an unlisted policy", okCluster + "policies: [fifo]\npolicy_options:\n  sjf: {x: 1}\n",
			[]string{"bad.yaml:7: policy_options.sjf: options for policy \"sjf\", which is not in policies (fifo)"}},
		{"NaN policy option", okCluster + "policy_options:\n  tiresias: {thresholds: [1, .nan]}\n",
			[]string{"bad.yaml:6: policy_options.tiresias.thresholds[1]: must be a finite number"}},
		{"name as a list", okCluster + "name: [a, b]\n", []string{"bad.yaml:5: name: may not be a list"}},
		{"empty axis", okCluster + "seed: []\n", []string{"bad.yaml:5: seed: empty list"}},
		{"negative bandwidth", okCluster + "preemption: {bandwidth_gb_per_second: -1}\n",
			[]string{"bad.yaml:5: preemption.bandwidth_gb_per_second: must not be negative, got -1"}},
		{"unknown job type in preemption", okCluster + "preemption:\n  seconds: {\"ResNet-50 (batch size 32)\": 3}\n",
			[]string{"bad.yaml:6: preemption.seconds[\"ResNet-50 (batch size 32)\"]: unknown job type \"ResNet-50 (batch size 32)\" (known: A3C, Big (batch size 1), ResNet-50 (batch size 64), Transformer (batch size 128))"}},
		{"negative preemption seconds", okCluster + "preemption:\n  seconds:\n    A3C: -3\n",
			[]string{"bad.yaml:7: preemption.seconds.A3C: must be between 0 and 86400 seconds (a day), got -3"}},
		{"throughputs empty", okCluster + "throughputs: \"\"\n", []string{"bad.yaml:5: throughputs: empty"}},
		{"throughputs missing file", okCluster + "throughputs: nowhere.json\n",
			[]string{"bad.yaml:5: throughputs: open nowhere.json: no such file"}},
		{"unknown generator", okCluster + "workload: {generator: helios}\n",
			[]string{"bad.yaml:5: workload.generator: unknown generator \"helios\" (known: philly, trace)"}},
		{"empty measured window", okCluster + "measure: {from_job: 5, to_job: 5}\n",
			[]string{"bad.yaml:5: measure.to_job: must be above from_job (5) and at most 1000000, got 5"}},
		{"negative measured window", okCluster + "measure: {from_job: -1, to_job: 5}\n",
			[]string{"bad.yaml:5: measure.from_job: must be between 0 and 1000000, got -1"}},
		{"measured window past the jobs", okCluster + "workload: {jobs: 10}\nmeasure: {from_job: 5, to_job: 20}\n",
			[]string{"bad.yaml:6: measure.to_job: must be at most workload.jobs (10), got 20"}},
		{"measured window as an axis", okCluster + "measure: {from_job: [1, 2], to_job: 5}\n",
			[]string{"bad.yaml:5: measure.from_job: may not be a list"}},
		{"stop without a window", okCluster + "measure: {stop: window_done}\n",
			[]string{"bad.yaml:5: measure: needs a window of jobs: set measure.from_job and measure.to_job"}},
		{"unknown stop", okCluster + "measure: {from_job: 1, to_job: 5, stop: maybe}\n",
			[]string{"bad.yaml:5: measure.stop: unknown choice \"maybe\" (known: all_done, window_done)"}},
		{"stop as a number", okCluster + "measure: {from_job: 1, to_job: 5, stop: 3}\n",
			[]string{"bad.yaml:5: measure.stop: unknown choice \"3\""}},
		{"stop as an axis", okCluster + "measure: {from_job: 1, to_job: 5, stop: [all_done, window_done]}\n",
			[]string{"bad.yaml:5: measure.stop: may not be a list"}},
		{"zero jobs", okCluster + "workload: {jobs: 0}\n", []string{"bad.yaml:5: workload.jobs: must be between 1 and 1000000, got 0"}},
		{"infinite rate", okCluster + "workload:\n  arrival_rate_per_hour: .inf\n",
			[]string{"bad.yaml:6: workload.arrival_rate_per_hour: must be a finite number, got .inf"}},
		{"negative rate", okCluster + "workload:\n  arrival_rate_per_hour: -2\n",
			[]string{"bad.yaml:6: workload.arrival_rate_per_hour: must not be negative, got -2"}},
		{"unknown job type", okCluster + "workload:\n  job_types: [A3C, resnet]\n",
			[]string{"bad.yaml:6: workload.job_types[1]: unknown job type \"resnet\" (known: A3C,"}},
		{"job type that cannot run here", "cluster:\n  servers: [{type: K80, count: 2, gpus_per_server: 4}]\nworkload:\n  job_types: [Transformer (batch size 128)]\n",
			[]string{"bad.yaml:4: workload.job_types[0]: job type \"Transformer (batch size 128)\" cannot run on any GPU type of this cluster",
				"K80: measured throughput at gang 1 (consolidated) is 0"}},
		{"gang too large", okCluster + "workload:\n  gangs:\n    - {size: 1, weight: 1}\n    - {size: 32, weight: 1}\n",
			[]string{"bad.yaml:8: workload.gangs[1].size: gang 32 is larger than any GPU type of this cluster can hold (largest: 8 GPUs of"}},
		{"default gangs on a small cluster", "cluster:\n  servers: [{type: V100, count: 1, gpus_per_server: 4}]\n",
			[]string{"bad.yaml: workload.gangs[3].size: gang 8 is larger than any GPU type of this cluster can hold (largest: 4 GPUs of V100)"}},
		{"no job type runs everywhere", "cluster:\n  servers:\n    - {type: V100, count: 2, gpus_per_server: 4}\n    - {type: T4, count: 2, gpus_per_server: 4}\n",
			[]string{"bad.yaml: workload.job_types: no known job type can run on every GPU type of this cluster (V100, T4); list the job types"}},
		{"unrunnable for philly", okCluster + "workload: {unrunnable: skip}\n", []string{"workload.unrunnable: only for generator \"trace\""}},
		{"unrunnable unknown", okCluster + "workload: {generator: trace, trace: testdata/jobs.csv, unrunnable: drop}\n",
			[]string{"workload.unrunnable: unknown choice \"drop\" (known: refuse, skip)"}},
		{"no job type at a gang", okCluster + "workload:\n  job_types: [A3C]\n",
			[]string{"bad.yaml:5: workload.gangs[1].size: no allowed job type can run at gang 2 on this cluster (allowed: A3C)"}},
		{"zero gang weight", okCluster + "workload:\n  gangs: [{size: 1, weight: 0}]\n",
			[]string{"workload.gangs[0].weight: must be > 0, got 0"}},
		{"duplicate gang size", okCluster + "workload:\n  gangs: [{size: 1, weight: 1}, {size: 1, weight: 2}]\n",
			[]string{"workload.gangs[1].size: duplicate gang size 1"}},
		{"unknown reference GPU", okCluster + "workload: {reference_gpu: A100}\n",
			[]string{"bad.yaml:5: workload.reference_gpu: unknown GPU type \"A100\""}},
		{"unknown user assignment", okCluster + "workload: {user_assignment: random}\n",
			[]string{"workload.user_assignment: unknown rule \"random\" (known: round_robin, uniform)"}},
		{"trace without a file", okCluster + "workload: {generator: trace}\n",
			[]string{"bad.yaml:5: workload.trace: required for generator \"trace\""}},
		{"trace file missing", okCluster + "workload: {generator: trace, trace: missing.trace}\n",
			[]string{"bad.yaml:5: workload.trace: open missing.trace: no such file"}},
		{"trace format unknown", okCluster + "workload: {generator: trace, trace: testdata/jobs.csv, trace_format: philly}\n",
			[]string{"workload.trace_format: unknown format \"philly\" (known: gavel, csv)"}},
		{"trace for philly", okCluster + "workload: {trace: testdata/jobs.csv}\n",
			[]string{"workload.trace: only for generator \"trace\""}},
		{"arrival rate for a trace", okCluster + "workload: {generator: trace, trace: testdata/jobs.csv, arrival_rate_per_hour: 2}\n",
			[]string{"workload.arrival_rate_per_hour: only for generator \"philly\""}},
		{"bad value at one grid point", okCluster + "workload:\n  jobs: [10, -1]\n  arrival_rate_per_hour: [0, 1]\n",
			[]string{"bad.yaml:6: workload.jobs: must be between 1 and 1000000, got -1 (at grid point {workload.arrival_rate_per_hour=0, workload.jobs=-1})"}},
		{"mixed list", okCluster + "workload:\n  job_types: [A3C, [A3C]]\n", []string{"bad.yaml:6: workload.job_types: mixes values and lists"}},
		{"too many users", okCluster + "user_count: 1000000000\n", []string{"bad.yaml:5: user_count: at most 10000, got 1000000000"}},
		{"too many servers", "cluster:\n  servers: [{type: V100, count: 1000000000000, gpus_per_server: 4}]\n",
			[]string{"bad.yaml:2: cluster.servers[0].count: the cluster would have more than 100000 servers, the limit (got count 1000000000000)"}},
		{"too many runs", okCluster + "seed: [1,2,3,4,5,6,7,8,9,10,11]\nround_seconds: [1,2,3,4,5,6,7,8,9,10]\nuser_count: [1,2,3,4,5,6,7,8,9,10]\n" +
			"workload: {jobs: [1,2,3,4,5,6,7,8,9,10], arrival_rate_per_hour: [1,2,3,4,5,6,7,8,9,10]}\n",
			[]string{"bad.yaml: the grid has more than 100000 runs"}},
		{"duplicate runs", okCluster + "seed: [1, 1]\n", []string{"bad.yaml: grid points {seed=1} and {seed=1} give the same run"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseWith([]byte(c.yaml), "bad.yaml", testCatalog())
			wantError(t, err, c.wants...)
		})
	}
}

// TestBadFiles loads each testdata/bad file and checks its error against
// the file's "# want:" line.
func TestBadFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("%s: first line must be \"# want: <error text>\"", f)
			}
			_, err = LoadWith(f, testCatalog())
			wantError(t, err, "scenarios: testdata/bad/"+want)
		})
	}
}
