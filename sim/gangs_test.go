package sim

import (
	"reflect"
	"strings"
	"testing"

	"fairbench/models"
)

// gangCluster: server 0 has 4 V100 (GPUs 0–3), server 1 has 2 V100 (GPUs
// 4–5), server 2 has 2 K80 (GPUs 6–7).
func gangCluster(t *testing.T) *models.Cluster {
	t.Helper()
	c, err := models.NewCluster([]models.GPUType{{Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}},
		[]models.Server{{Type: "V100", GPUs: 4}, {Type: "V100", GPUs: 2}, {Type: "K80", GPUs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Whole GPUs, worked by hand on gangCluster:
//   - job 1 (gang 2) already runs on V100 GPUs 4–5 and stays on V100: it
//     keeps them (no migration), with its assignment's accumulation;
//   - jobs 2 (gang 1) and 3 (gang 3) are new; largest gang first: job 3 by
//     best fit goes to server 0 (4 free ≥ 3; server 1 has none left), GPUs
//     0–2, and job 2 takes the V100 left, GPU 3;
//   - add job 4 (gang 2) moving from K80 to V100: no two V100 are left, an
//     error naming the job.
func TestPlaceGangsWholeGPUs(t *testing.T) {
	t.Parallel()
	c := gangCluster(t)
	now := map[models.JobID]Holding{
		1: {Type: "V100", GPUs: []int{4, 5}, Gang: 2},
		2: {Gang: 1},
		3: {Gang: 3},
	}
	run := []models.Assignment{{Job: 2, Type: "V100"}, {Job: 1, Type: "V100", Accum: 2}, {Job: 3, Type: "V100"}}
	got, err := PlaceGangs(c, now, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Slot{
		{Job: 1, Type: "V100", GPUs: []int{4, 5}, Accum: 2}, // kept
		{Job: 3, Type: "V100", GPUs: []int{0, 1, 2}},        // fresh, gang 3 first, best fit
		{Job: 2, Type: "V100", GPUs: []int{3}},              // fresh, the GPU left
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if &got[0].GPUs[0] != &now[1].GPUs[0] {
		t.Error("a kept slot should reuse the job's own GPU slice")
	}
	now[4] = Holding{Type: "K80", GPUs: []int{6, 7}, Gang: 2}
	_, err = PlaceGangs(c, now, append(run, models.Assignment{Job: 4, Type: "V100"}), nil)
	if err == nil || !strings.Contains(err.Error(), "no 2 free V100 GPUs for job 4") {
		t.Errorf("got %v, want no 2 free V100 GPUs for job 4", err)
	}
}

// A gang no server holds is spread over the servers with the most free GPUs:
// a gang of 5 V100 takes server 0's four (GPUs 0–3) and then GPU 4.
func TestPlaceGangsSpread(t *testing.T) {
	t.Parallel()
	got, err := PlaceGangs(gangCluster(t), map[models.JobID]Holding{7: {Gang: 5}}, []models.Assignment{{Job: 7, Type: "V100"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Slot{{Job: 7, Type: "V100", GPUs: []int{0, 1, 2, 3, 4}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Co-located: named GPUs are taken as given, and may overlap. Jobs 1 and 2
// share GPU 6 (a K80); job 3, unnamed, then gets the other K80, GPU 7.
func TestPlaceGangsCoLocated(t *testing.T) {
	t.Parallel()
	now := map[models.JobID]Holding{1: {Gang: 1}, 2: {Gang: 1}, 3: {Gang: 1}}
	run := []models.Assignment{{Job: 1, Type: "K80", GPUs: []int{6}}, {Job: 2, Type: "K80", GPUs: []int{6}}, {Job: 3, Type: "K80"}}
	got, err := PlaceGangs(gangCluster(t), now, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Slot{{Job: 1, Type: "K80", GPUs: []int{6}}, {Job: 2, Type: "K80", GPUs: []int{6}}, {Job: 3, Type: "K80", GPUs: []int{7}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A pair is placed as one gang: jobs 5 and 6 (gang 2) share GPUs. Both new:
// best fit puts them on server 1 (exactly 2 free), GPUs 4–5, one slice for
// both. Both already together on 4–5: they stay. Job 5 on 4–5 but its
// partner elsewhere: not kept, so both are placed fresh on server 1 again.
func TestPlaceGangsPairs(t *testing.T) {
	t.Parallel()
	c := gangCluster(t)
	run := []models.Assignment{{Job: 5, Type: "V100"}, {Job: 6, Type: "V100"}}
	pairs := [][2]models.JobID{{5, 6}}
	for _, tc := range []struct {
		name string
		now  map[models.JobID]Holding
	}{
		{"new", map[models.JobID]Holding{5: {Gang: 2}, 6: {Gang: 2}}},
		{"staying", map[models.JobID]Holding{5: {Type: "V100", GPUs: []int{4, 5}, Gang: 2}, 6: {Type: "V100", GPUs: []int{4, 5}, Gang: 2}}},
		{"split", map[models.JobID]Holding{5: {Type: "V100", GPUs: []int{4, 5}, Gang: 2}, 6: {Type: "V100", GPUs: []int{0, 1}, Gang: 2}}},
	} {
		got, err := PlaceGangs(c, tc.now, run, pairs)
		if err != nil {
			t.Fatal(err)
		}
		want := []Slot{{Job: 5, Type: "V100", GPUs: []int{4, 5}}, {Job: 6, Type: "V100", GPUs: []int{4, 5}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, want)
		}
		if &got[0].GPUs[0] != &got[1].GPUs[0] {
			t.Errorf("%s: a pair's slots should share one GPU slice", tc.name)
		}
	}
}

// One round of time shares: the pair (0, 1) with share 1 and job 2 with
// share 0.1 on 2 V100 (PlanRound: the pair takes one GPU's worth — gang 1 —
// and job 2 the other, see TestPlanRoundPair): assignments for jobs 0 and 1
// and 2, in pick order, and the pair.
func TestShareRound(t *testing.T) {
	t.Parallel()
	pair := unit(0, 1, []float64{1}, []float64{180})
	pair.Jobs = [2]models.JobID{0, 1}
	alone := unit(1, 1, []float64{0.5}, []float64{180})
	other := unit(2, 1, []float64{0.1}, []float64{180})
	in := RoundInput{Types: []string{"V100"}, Free: []int{2}, WorkerTime: []float64{540}, Units: []Unit{pair, alone, other}}
	run, pairs := ShareRound(in)
	wantRun := []models.Assignment{{Job: 0, Type: "V100"}, {Job: 1, Type: "V100"}, {Job: 2, Type: "V100"}}
	if !reflect.DeepEqual(run, wantRun) {
		t.Errorf("run %+v, want %+v", run, wantRun)
	}
	if want := [][2]models.JobID{{0, 1}}; !reflect.DeepEqual(pairs, want) {
		t.Errorf("pairs %v, want %v", pairs, want)
	}
}
