package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLimits: each case is the first value past a documented limit
// (docs/limits.md) or an input the format allows but fairbench refuses,
// with the message naming the file, line and key.
func TestLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		yaml  string
		wants []string
	}{
		{"second document", okCluster + "---\nseed: 1\n", []string{"bad.yaml:6: a second YAML document"}},
		{"empty second document is fine", "", nil},
		{"user_count 0", okCluster + "user_count: 0\n", []string{"bad.yaml:5: user_count: must be ≥ 1, got 0"}},
		{"round of a day and a second", okCluster + "round_seconds: 86401\n", []string{"bad.yaml:5: round_seconds: must be between 1 and 86400 seconds (a day), got 86401"}},
		{"restore of a day and a second", okCluster + "preemption:\n  seconds: {A3C: 86401}\n", []string{"bad.yaml:6: preemption.seconds.A3C: must be between 0 and 86400"}},
		{"bandwidth making a restore take days", okCluster + "preemption: {bandwidth_gb_per_second: 1e-6}\n",
			[]string{"bad.yaml:5: preemption.bandwidth_gb_per_second: 1e-06 GB/s makes restoring \"A3C\" (0.1 GB of state) take 1e+05 s"}},
		{"1025 GPUs per server", "cluster:\n  servers: [{type: V100, gpus_per_server: 1025}]\n", []string{"bad.yaml:2: cluster.servers[0].gpus_per_server: must be at most 1024"}},
		{"100001 GPUs", "cluster:\n  servers: [{type: V100, count: 100001, gpus_per_server: 1}]\n", []string{"cluster.servers[0].count: the cluster would have more than 100000 servers"}},
		{"weight past 1e6", okCluster + "users: [{name: a, weight: 1000001}]\n", []string{"bad.yaml:5: users[0].weight: must be between 1e-06 and 1e+06"}},
		{"10001 users", okCluster + "user_count: 10001\n", []string{"bad.yaml:5: user_count: at most 10000, got 10001"}},
		{"arrivals past a year", okCluster + "workload: {jobs: 1000, arrival_rate_per_hour: 0.1}\n",
			[]string{"bad.yaml:5: workload.arrival_rate_per_hour: at 0.1 jobs per hour, 1000 jobs arrive over about 3.6e+07 s, more than 1 year"}},
		{"unknown policy", okCluster + "policies: [fifo, sjff]\n", []string{"bad.yaml:5: policies[1]: unknown policy \"sjff\""}},
		{"policy option typo", okCluster + "policy_options:\n  fifo:\n    backfil: true\n",
			[]string{"bad.yaml:7: policy_options.fifo.backfil: policy fifo: fifo: options: unknown option keys: backfil"}},
		{"job type declared twice", "job_types: [{name: New}, {name: New}]\n" + okCluster, []string{"bad.yaml:1: job_types[1].name: \"New\" is already a job type"}},
		{"declared job type of the catalogue", "job_types: [{name: A3C}]\n" + okCluster, []string{"job_types[0].name: \"A3C\" is already a job type"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.wants == nil {
				if _, err := ParseWith([]byte(okCluster+"---\n"), "ok.yaml", testCatalog()); err != nil {
					t.Errorf("a trailing empty document: %v", err)
				}
				return
			}
			_, err := ParseWith([]byte(c.yaml), "bad.yaml", testCatalog())
			wantError(t, err, c.wants...)
		})
	}
}

// TestAliasBudget: a document that expands through aliases to more than
// MaxYAMLValues values is refused before it is expanded.
func TestAliasBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(okCluster + "workload:\n  job_types: [&a [")
	b.WriteString(strings.Repeat("A3C, ", 999) + "A3C]")
	b.WriteString(strings.Repeat(", *a", 1100) + "]\n")
	_, err := ParseWith([]byte(b.String()), "bomb.yaml", testCatalog())
	wantError(t, err, "bomb.yaml:6: workload.job_types", "expands to more than 1000000 values")
}

// TestThroughputsJobTypesMustBeKnown: a throughputs file may give figures
// of catalogue job types and of those declared under job_types; any other
// name (a typo) is refused, naming the file and the job type.
func TestThroughputsJobTypesMustBeKnown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.json")
	if err := os.WriteFile(file, []byte(`{"v100": {"('A3C', 1)": {"null": 2}, "('Fresh', 1)": {"null": 3}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := okCluster + "throughputs: t.json\nworkload: {jobs: 3, job_types: [Fresh], gangs: [{size: 1, weight: 1}]}\n"
	_, err := ParseWith([]byte(base), filepath.Join(dir, "s.yaml"), testCatalog())
	wantError(t, err, "s.yaml:5: throughputs", "job type \"Fresh\"", "neither a catalogue job type nor declared under job_types")
	g, err := ParseWith([]byte("job_types: [{name: Fresh, state_gb: 2}]\n"+base), filepath.Join(dir, "s.yaml"), testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	w := build(t, g.Runs[0])
	// Declared state 2 GB over the default 1.25 GB/s: 1.6 s to restore.
	if w.JobTypes["Fresh"].StateGB != 2 || w.Restore["Fresh"].Seconds() != 1.6 || len(w.Jobs) != 3 {
		t.Errorf("declared type %+v, restore %v, %d jobs", w.JobTypes["Fresh"], w.Restore["Fresh"], len(w.Jobs))
	}
}
