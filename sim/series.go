package sim

import (
	"time"
)

// Series is the run's time series: one point per bucket of whole rounds
// (Width seconds), each the time average over its bucket.
type Series struct {
	// Start is each bucket's start time in seconds.
	Start []float64 `json:"start_s"`
	// Width is the bucket length in seconds.
	Width float64 `json:"width_s"`
	// Utilisation is the fraction of the cluster's GPUs held by jobs.
	Utilisation []float64 `json:"utilisation"`
	// Share is, per user, the fraction of the cluster's GPUs the user held.
	Share map[string][]float64 `json:"share"`
	// Entitled is, per user, the fraction the user was entitled to: its
	// weighted water-filled share of the cluster given every active user's
	// demand (Σ gang of its active jobs).
	Entitled map[string][]float64 `json:"entitled"`
}

// recorder integrates GPU holdings over time into per-round buckets.
type recorder struct {
	users []string
	gpus  float64
	round time.Duration

	cur      int       // index of the bucket being filled
	held     []float64 // per user, GPU·seconds in the current bucket
	entitled []float64
	buckets  []bucket

	totalHeld     []float64 // per user, GPU·seconds over the whole run
	totalEntitled []float64
	end           time.Duration // end of the run, set by close
}

type bucket struct{ held, entitled []float64 }

func newRecorder(users []string, gpus int, round time.Duration) *recorder {
	n := len(users)
	return &recorder{
		users: users, gpus: float64(gpus), round: round,
		held: make([]float64, n), entitled: make([]float64, n),
		totalHeld: make([]float64, n), totalEntitled: make([]float64, n),
	}
}

// span adds the interval [from, to) during which each user held and was
// entitled to the given numbers of GPUs.
func (r *recorder) span(from, to time.Duration, holding, entitle []float64) {
	for from < to {
		b := int(from / r.round)
		for r.cur < b {
			r.flush()
		}
		end := min(to, time.Duration(b+1)*r.round)
		dt := (end - from).Seconds()
		for u := range r.users {
			r.held[u] += holding[u] * dt
			r.entitled[u] += entitle[u] * dt
			r.totalHeld[u] += holding[u] * dt
			r.totalEntitled[u] += entitle[u] * dt
		}
		from = end
	}
}

func (r *recorder) flush() {
	r.buckets = append(r.buckets, bucket{r.held, r.entitled})
	r.held, r.entitled = make([]float64, len(r.users)), make([]float64, len(r.users))
	r.cur++
}

// close ends the last, possibly partial, bucket at the end of the run.
func (r *recorder) close(end time.Duration) {
	r.end = end
	if end > time.Duration(r.cur)*r.round {
		r.flush()
	}
}

// series averages the buckets into at most maxPoints points of k whole rounds
// each.
func (r *recorder) series(maxPoints int) Series {
	k := (len(r.buckets) + maxPoints - 1) / maxPoints
	k = max(k, 1)
	width := time.Duration(k) * r.round
	s := Series{Width: width.Seconds(), Share: map[string][]float64{}, Entitled: map[string][]float64{}}
	for start := 0; start < len(r.buckets); start += k {
		end := min(start+k, len(r.buckets))
		// The last bucket may be cut short by the end of the run.
		span := min(width, r.end-time.Duration(start)*r.round)
		norm := 1 / (r.gpus * span.Seconds())
		var busy float64
		for u, name := range r.users {
			var h, en float64
			for _, b := range r.buckets[start:end] {
				h += b.held[u]
				en += b.entitled[u]
			}
			s.Share[name] = append(s.Share[name], h*norm)
			s.Entitled[name] = append(s.Entitled[name], en*norm)
			busy += h
		}
		s.Start = append(s.Start, (time.Duration(start) * r.round).Seconds())
		s.Utilisation = append(s.Utilisation, busy*norm)
	}
	return s
}
