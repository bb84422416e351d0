package microbench

import (
	"fmt"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// Benchmarks of the fair-division policies of issue 21 (nash, nash-pa,
// ceei, gavel-strategy-proof, themis, oef, oef-noncoop): one decision for 2,048 active jobs
// on 1,536 GPUs (512 each of V100, P100 and K80), the size of Gavel's LP
// scaling figure, with the jobs spread round-robin over 16 users of weights
// 1–4:
//
//	GOMAXPROCS=1 go test -run '^$' -bench FairDivision -benchtime 1x ./microbench/
//
// Each reports the policy's own statistics where it has them (LP solves of
// the cutting-plane loops, whether every market solve was exact).

// divisionSnapshot is gavelSnapshot's n jobs on 1,536 GPUs (at n = 2,048)
// owned round-robin by 16 users of weights 1, 2, 3, 4, 1, ….
func divisionSnapshot(tb testing.TB, n int) *models.Snapshot {
	tb.Helper()
	s := gavelSnapshot(tb, n)
	s.Trigger = models.AtRound
	s.Users = nil
	for u := 0; u < 16; u++ {
		s.Users = append(s.Users, models.User{Name: fmt.Sprintf("u%02d", u), Weight: float64(1 + u%4)})
	}
	for i := range s.Jobs {
		s.Jobs[i].User = s.Users[i%16].Name
	}
	return s
}

func BenchmarkFairDivision2048(b *testing.B) {
	s := divisionSnapshot(b, 2048)
	for _, name := range []string{"nash", "nash-pa", "ceei", "gavel-strategy-proof", "themis", "oef", "oef-noncoop"} {
		// No time limit where the policy has one (OEF has no options).
		opts := map[string]any{"time_limit": 0}
		if strings.HasPrefix(name, "oef") {
			opts = nil
		}
		b.Run(name, func(b *testing.B) {
			var p solvers.Policy
			var a models.Allocation
			for b.Loop() {
				var err error
				// A fresh policy per decision: themis keeps leases.
				if p, err = registry.Default().New(name, solvers.Config{Options: opts}); err != nil {
					b.Fatal(err)
				}
				if a, err = p.Allocate(s); err != nil {
					b.Fatal(err)
				}
			}
			if err := models.Feasible(s, a); err != nil {
				b.Fatal(err)
			}
			if r, ok := p.(solvers.Reporter); ok {
				b.Logf("%s: %+v", name, r.Report())
			}
		})
	}
}
