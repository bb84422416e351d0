package sim

import (
	"math"
	"testing"
	"time"
)

// The recorder by hand: 4 GPUs, 10 s rounds, at most 2 buckets. User a
// holds 2 GPUs over [0, 50) s, entitled to 2; user b holds 1 over [15, 25),
// entitled to 2 then. The run's 5 rounds need width 4 (widths 1 and 2 give
// 5 and 3 buckets): [0, 40) and [40, 50).
//
//	bucket 0: a 2·40 = 80 GPU·s, b 1·10 = 10; norm 1/(4·40) = 1/160:
//	          share a 0.5, b 0.0625, utilisation 90/160 = 0.5625;
//	          entitled a 80/160 = 0.5, b 2·10/160 = 0.125
//	bucket 1: 10 s long: a 2·10 = 20 → 20/40 = 0.5, b 0, utilisation 0.5
func TestRecorderFixedResolution(t *testing.T) {
	t.Parallel()
	s := time.Second
	r := newRecorder([]string{"a", "b"}, 4, 10*s, 2)
	r.span(0, 15*s, []float64{2, 0}, []float64{2, 0})
	r.span(15*s, 25*s, []float64{2, 1}, []float64{2, 2})
	r.span(25*s, 50*s, []float64{2, 0}, []float64{2, 0})
	r.close(50 * s)
	got := r.series()
	want := Series{Start: []float64{0, 40}, Width: 40, Utilisation: []float64{0.5625, 0.5},
		Share:    map[string][]float64{"a": {0.5, 0.5}, "b": {0.0625, 0}},
		Entitled: map[string][]float64{"a": {0.5, 0.5}, "b": {0.125, 0}}}
	if got.Width != want.Width || !nearAll(got.Start, want.Start) || !nearAll(got.Utilisation, want.Utilisation) {
		t.Fatalf("series %+v, want %+v", got, want)
	}
	for _, u := range []string{"a", "b"} {
		if !nearAll(got.Share[u], want.Share[u]) || !nearAll(got.Entitled[u], want.Entitled[u]) {
			t.Errorf("user %s: share %v entitled %v, want %v %v", u, got.Share[u], got.Entitled[u], want.Share[u], want.Entitled[u])
		}
	}
	if r.totalHeld[0] != 100 || r.totalHeld[1] != 10 || r.totalEntitled[1] != 20 {
		t.Errorf("totals %v %v", r.totalHeld, r.totalEntitled)
	}
}

// The recorder's memory does not grow with the run: 10,000 rounds in at
// most 500 buckets (width 32, the least power of two with ⌈10,000/w⌉ ≤
// 500: 313 buckets), and the series still integrates the whole run.
func TestRecorderBounded(t *testing.T) {
	t.Parallel()
	s := time.Second
	r := newRecorder([]string{"a"}, 1, s, 500)
	for i := range 10000 {
		r.span(time.Duration(i)*s, time.Duration(i+1)*s, []float64{float64(i % 2)}, []float64{1})
		if len(r.buckets) > 500 {
			t.Fatalf("round %d: %d buckets", i, len(r.buckets))
		}
	}
	r.close(10000 * s)
	got := r.series()
	if r.width != 32 || len(got.Start) != 313 || got.Width != 32 {
		t.Fatalf("width %d, %d points of %v s", r.width, len(got.Start), got.Width)
	}
	// Every bucket but the last (16 rounds: 10,000 − 312·32) is half
	// held; the last too (8 of its 16 rounds are odd).
	for i, v := range got.Utilisation {
		if math.Abs(v-0.5) > 1e-12 {
			t.Fatalf("point %d: utilisation %v, want 0.5", i, v)
		}
	}
}

func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}
