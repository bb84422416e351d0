package models

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidateRefusesBadInput(t *testing.T) {
	t.Parallel()
	v100 := GPUType{Name: "V100", MemoryGB: 16, Rank: 3}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"gpu no name", GPUType{MemoryGB: 16}.Validate(), "name is empty"},
		{"gpu NaN memory", GPUType{Name: "X", MemoryGB: math.NaN()}.Validate(), "memory_gb: must be a finite number"},
		{"gpu zero memory", GPUType{Name: "X"}.Validate(), "memory_gb: must be positive"},
		{"user inf weight", User{Name: "a", Weight: math.Inf(1)}.Validate(), `user "a": weight: must be a finite number`},
		{"user negative weight", User{Name: "a", Weight: -1}.Validate(), "weight: must be positive, got -1"},
		{"job type negative state", JobType{Name: "m", StateGB: -2}.Validate(), "state_gb: must not be negative"},
		{"job zero gang", Job{ID: 3, User: "a", Type: "m", Steps: 1}.Validate(), "job 3: gang: must be between 1 and 100000, got 0"},
		{"job NaN steps", Job{ID: 4, User: "a", Type: "m", Gang: 1, Steps: math.NaN()}.Validate(), "job 4: steps: must be a finite number"},
		{"job negative arrival", Job{ID: 5, User: "a", Type: "m", Gang: 1, Steps: 1, Arrival: -1}.Validate(), "job 5: arrival: must be between 0 and 1 year, got -1ns"},
		{"job no user", Job{ID: 6, Type: "m", Gang: 1, Steps: 1}.Validate(), "job 6: user is empty"},
		{"cluster no servers", (&Cluster{Types: []GPUType{v100}}).Validate(), "no servers"},
		{"cluster zero gpus", (&Cluster{Types: []GPUType{v100}, Servers: []Server{{Type: "V100"}}}).Validate(), "servers[0]: gpus must be between 1 and 1024, got 0"},
		// The limits (docs/limits.md): each is the first value past its bound.
		{"gpu absurd memory", GPUType{Name: "X", MemoryGB: 1e308}.Validate(), "memory_gb: 1e+308 GB is more than 1e+06 GB"},
		{"user tiny weight", User{Name: "a", Weight: 1e-300}.Validate(), "weight: 1e-300 is outside [1e-06, 1e+06]"},
		{"user huge weight", User{Name: "a", Weight: 1e308}.Validate(), "weight: 1e+308 is outside [1e-06, 1e+06]"},
		{"job huge steps", Job{ID: 7, User: "a", Type: "m", Gang: 1, Steps: 1e16}.Validate(), "job 7: steps: 1e+16 is more than 1e+15"},
		{"job late arrival", Job{ID: 8, User: "a", Type: "m", Gang: 1, Steps: 1, Arrival: MaxHorizon + 1}.Validate(), "job 8: arrival: must be between 0 and 1 year"},
		{"job huge gang", Job{ID: 9, User: "a", Type: "m", Gang: MaxGPUs + 1, Steps: 1}.Validate(), "job 9: gang: must be between 1 and 100000, got 100001"},
		{"job huge priority", Job{ID: 10, User: "a", Type: "m", Gang: 1, Steps: 1, Priority: 1e7}.Validate(), "job 10: priority: 1e+07 is outside"},
		{"cluster huge server", (&Cluster{Types: []GPUType{v100}, Servers: []Server{{Type: "V100", GPUs: 2147483648}}}).Validate(), "servers[0]: gpus must be between 1 and 1024, got 2147483648"},
		{"cluster too many GPUs", (&Cluster{Types: []GPUType{v100}, Servers: manyServers(98, 1024)}).Validate(), "servers[97]: the cluster has more than 100000 GPUs"},
		{"figure too large", NewMatrix().Set(Key{Job: "m", GPU: "V100", Gang: 1}, 1e26, "t"), "1e+26 steps/s is outside [1e-06, 1e+06]"},
		{"figure too small", NewMatrix().Set(Key{Job: "m", GPU: "V100", Gang: 1}, 1e-300, "t"), "1e-300 steps/s is outside"},
		{"pair figure too large", NewMatrix().SetPair(PairKey{Key: Key{Job: "m", GPU: "V100", Gang: 1}, Other: "n"}, 1, 1e26), "1e+26 steps/s is outside"},
		{"cluster unknown type", (&Cluster{Types: []GPUType{v100}, Servers: []Server{{Type: "Z9", GPUs: 4}}}).Validate(), `servers[0]: unknown gpu type "Z9"`},
		{"cluster duplicate type", (&Cluster{Types: []GPUType{v100, v100}, Servers: []Server{{Type: "V100", GPUs: 1}}}).Validate(), `types[1]: duplicate gpu type "V100"`},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, c.err, c.want)
		}
	}
	if err := (Job{ID: 1, User: "a", Type: "m", Gang: 2, Steps: 10}).Validate(); err != nil {
		t.Errorf("valid job refused: %v", err)
	}
}

// manyServers is n servers of gpus V100 GPUs each.
func manyServers(n, gpus int) []Server {
	out := make([]Server, n)
	for i := range out {
		out[i] = Server{Type: "V100", GPUs: gpus}
	}
	return out
}

// TestSecondsSaturates: the conversion never wraps around (1e10 s is past
// time.Duration's 292 years).
func TestSecondsSaturates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want time.Duration
	}{
		{1.5, 1500 * time.Millisecond},
		{1e10, math.MaxInt64},
		{math.Inf(1), math.MaxInt64},
		{-1e300, math.MinInt64},
		{math.NaN(), 0},
		{MaxHorizonSeconds, MaxHorizon},
	}
	for _, c := range cases {
		if got := Seconds(c.in); got != c.want {
			t.Errorf("Seconds(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestClusterIndexing(t *testing.T) {
	t.Parallel()
	c, err := NewCluster(
		[]GPUType{{Name: "K80", MemoryGB: 12, Rank: 1}, {Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "T4", MemoryGB: 16, Rank: 4}},
		[]Server{{Type: "K80", GPUs: 4}, {Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 8}})
	if err != nil {
		t.Fatal(err)
	}
	// GPUs 0-3 on server 0 (K80), 4-5 on server 1, 6-13 on server 2.
	if c.TotalGPUs() != 14 || c.FirstGPU(2) != 6 || c.ServerOf(5) != 1 || c.TypeOfGPU(13) != "V100" {
		t.Errorf("indexing wrong: total %d first(2) %d serverOf(5) %d", c.TotalGPUs(), c.FirstGPU(2), c.ServerOf(5))
	}
	if c.Capacity("V100") != 10 || c.MaxServerGPUs("V100") != 8 || c.Capacity("T4") != 0 {
		t.Errorf("capacity V100 %d max %d T4 %d", c.Capacity("V100"), c.MaxServerGPUs("V100"), c.Capacity("T4"))
	}
	// T4 has no server, so it is not listed; V100 (rank 3) before K80.
	if got := strings.Join(c.TypeNames(), ","); got != "V100,K80" {
		t.Errorf("TypeNames %s, want V100,K80", got)
	}
}

func TestWaterFill(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		cap              float64
		weights, demands []float64
		want             []float64
	}{
		// Gandiva_fair's example (EuroSys 2020 §2): 8 GPUs, A and B want 4+
		// each, C only 2: C gets 2, A and B split the other 6 → 3 each.
		{"paper example", 8, []float64{1, 1, 1}, []float64{8, 8, 2}, []float64{3, 3, 2}},
		// Weights 2:1:1 over 12 GPUs, no caps → 6, 3, 3.
		{"weighted", 12, []float64{2, 1, 1}, []float64{100, 100, 100}, []float64{6, 3, 3}},
		// Weights 2:1:1; the heavy user wants only 2 → the others split 10.
		{"heavy capped", 12, []float64{2, 1, 1}, []float64{2, 100, 100}, []float64{2, 5, 5}},
		// Total demand 5 under capacity 10: everyone gets its demand.
		{"under-subscribed", 10, []float64{1, 3}, []float64{2, 3}, []float64{2, 3}},
		// A user without demand gets nothing.
		{"no demand", 4, []float64{1, 1}, []float64{0, 9}, []float64{0, 4}},
	}
	for _, c := range cases {
		got := WaterFill(c.cap, c.weights, c.demands)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestEqualShareThroughput(t *testing.T) {
	t.Parallel()
	c, _ := NewCluster([]GPUType{{Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}},
		[]Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 8}})
	m := NewMatrix()
	_ = m.Set(Key{Job: "m", GPU: "V100", Gang: 2}, 10, "t")
	_ = m.Set(Key{Job: "m", GPU: "K80", Gang: 2}, 4, "t")
	j := &Job{ID: 1, User: "a", Type: "m", Gang: 2, Steps: 1}
	// f = 1/4: V100 share 4/4 = 1 GPU → x ≤ 1/2; K80 share 2 GPUs → x ≤ 1,
	// capped by Σx ≤ 1: x_V100 = 1/2, x_K80 = 1/2 → 10/2 + 4/2 = 7.
	if got := EqualShareThroughput(c, m, nil, j, 0.25); math.Abs(got-7) > 1e-12 {
		t.Errorf("f=1/4: %v, want 7", got)
	}
	// f = 1/8: V100 0.5 GPU → x ≤ 1/4; K80 1 GPU → x ≤ 1/2 → 2.5 + 2 = 4.5.
	if got := EqualShareThroughput(c, m, nil, j, 0.125); math.Abs(got-4.5) > 1e-12 {
		t.Errorf("f=1/8: %v, want 4.5", got)
	}
	// f = 1: the whole V100 pool holds the gang twice: x_V100 = 1 → 10.
	if got := EqualShareThroughput(c, m, nil, j, 1); got != 10 {
		t.Errorf("f=1: %v, want 10", got)
	}
}

func TestJain(t *testing.T) {
	t.Parallel()
	// (1+1+1+1)² / (4·4) = 1; (4)² / (4·16) = 1/4; (1+3)² / (2·10) = 0.8.
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{1, 1, 1, 1}, 1}, {[]float64{4, 0, 0, 0}, 0.25}, {[]float64{1, 3}, 0.8}} {
		if got := Jain(c.xs); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Jain(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
