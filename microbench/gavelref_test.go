package microbench

import (
	"os"
	"path/filepath"
	"testing"

	"fairbench/calibrate"
	"fairbench/models/catalogue"
	"fairbench/reports/gavelref"
	"fairbench/solvers/registry"
)

// BenchmarkCompareGavelFIFO is 'fairbench compare-gavel --policy
// gavel-fifo' on the small reference folder of reports/gavelref (200 jobs
// on 12 V100 + 12 P100 + 12 K80) with a Gavel-format throughput file: the
// built-in catalogue's figures as calibrate.EncodeGavel writes them (2,028
// co-location figures; Gavel's own file has 10,338). Each iteration is
// what the command's CPU column counts: the scenario built (the trace and
// the throughput file read and checked) and simulated.
func BenchmarkCompareGavelFIFO(b *testing.B) {
	data, err := calibrate.EncodeGavel(catalogue.Builtin().Matrix)
	if err != nil {
		b.Fatal(err)
	}
	tp := filepath.Join(b.TempDir(), "throughputs.json")
	if err := os.WriteFile(tp, data, 0o644); err != nil {
		b.Fatal(err)
	}
	ref, err := gavelref.Load("../reports/gavelref/testdata/small", map[string]int{"V100": 12, "P100": 12, "K80": 12}, [2]int{0, 200})
	if err != nil {
		b.Fatal(err)
	}
	o := gavelref.Options{Throughputs: tp, Policies: []string{"gavel-fifo"}, Seed: 7, Registry: registry.Default()}
	for b.Loop() {
		rows, err := gavelref.Compare(ref, o)
		if err != nil || len(rows) != 1 || rows[0].Jobs == 0 {
			b.Fatalf("%+v, %v", rows, err)
		}
	}
}
