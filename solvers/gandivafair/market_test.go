package gandivafair_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"fairbench/solvers/gandivafair"
)

// market builds a Market over types (fastest first) whose users have the
// given per-type speeds (their jobs' throughput, one job type per user), so
// that r_u of (slow, fast) = speed[u][fast] / speed[u][slow]; every user
// starts with share GPUs of every type.
func market(types []string, speed [][]float64, share float64) *gandivafair.Market {
	m := &gandivafair.Market{Types: types}
	for u := range speed {
		m.Users = append(m.Users, string(rune('A'+u)))
		row := make([]float64, len(types))
		for k := range row {
			row[k] = share
		}
		m.Share = append(m.Share, row)
	}
	m.Speedup = func(u, slow, fast int) (float64, bool) { return speed[u][fast] / speed[u][slow], true }
	return m
}

type wantTrade struct {
	buyer, seller, slow, fast string
	volume, price             float64
}

func checkTrades(t *testing.T, got []gandivafair.Trade, want []wantTrade) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d trades %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Buyer != w.buyer || g.Seller != w.seller || g.Slow != w.slow || g.Fast != w.fast ||
			math.Abs(g.Volume-w.volume) > 1e-9 || math.Abs(g.Price-w.price) > 1e-9 {
			t.Errorf("trade %d = %s buys %.6g %s from %s at %.6g %s; want %s buys %.6g %s from %s at %.6g %s",
				i, g.Buyer, g.Volume, g.Fast, g.Seller, g.Price, g.Slow, w.buyer, w.volume, w.fast, w.seller, w.price, w.slow)
		}
		if g.Price < g.SellerSpeedup-1e-12 || g.Price > g.BuyerSpeedup+1e-12 {
			t.Errorf("trade %d: price %v outside [r_seller %v, r_buyer %v]", i, g.Price, g.SellerSpeedup, g.BuyerSpeedup)
		}
	}
}

func checkShares(t *testing.T, m *gandivafair.Market, want [][]float64) {
	t.Helper()
	for u := range want {
		for k := range want[u] {
			if math.Abs(m.Share[u][k]-want[u][k]) > 1e-9 {
				t.Errorf("%s's share of %s = %.9g, want %.9g", m.Users[u], m.Types[k], m.Share[u][k], want[u][k])
			}
		}
	}
}

// value is Σ_k share[u][k]·speed[u][k]: user u's throughput in GPUs of speed 1.
func value(m *gandivafair.Market, speed [][]float64, u int) float64 {
	v := 0.0
	for k := range m.Types {
		v += m.Share[u][k] * speed[u][k]
	}
	return v
}

// Two users, V100 and K80, 2 GPUs of each per user. A's jobs run 4× faster
// on V100 (r_A = 4), B's 1.5× (r_B = 1.5).
//
//	Holders of both: A (4), B (1.5). Buyer A, seller B; the user ranked next
//	below A is B, so p = 1.5.
//	v = min(share[A][K80] / p, share[B][V100]) = min(2/1.5, 2) = 4/3 (A runs out of K80).
//	A: K80 2 − 1.5·4/3 = 0, V100 2 + 4/3 = 10/3.   B: K80 2 + 2 = 4, V100 2 − 4/3 = 2/3.
//	A leaves the holders; one is left, so trading ends.
//
// In K80 equivalents A goes from 2·4 + 2 = 10 to 10/3·4 = 13.33, B stays at
// 2·1.5 + 2 = 5 = 2/3·1.5 + 4 (with two users the second price is the
// seller's own speedup), the cluster from 15 to 18.33.
func TestMarketTwoUsersTwoTypes(t *testing.T) {
	t.Parallel()
	speed := [][]float64{{4, 1}, {1.5, 1}}
	m := market([]string{"V100", "K80"}, speed, 2)
	checkTrades(t, m.Run(), []wantTrade{{"A", "B", "K80", "V100", 4.0 / 3, 1.5}})
	checkShares(t, m, [][]float64{{10.0 / 3, 0}, {2.0 / 3, 4}})
	if a, b := value(m, speed, 0), value(m, speed, 1); math.Abs(a-40.0/3) > 1e-9 || math.Abs(b-5) > 1e-9 {
		t.Errorf("values A %v, B %v; want 13.33, 5", a, b)
	}
}

// Three users, V100 and K80, 2 GPUs of each per user; r_A = 4, r_B = 2,
// r_C = 1.25.
//
//	Round 1: holders A (4), B (2), C (1.25). Buyer A, seller C, price = r_B = 2.
//	  v = min(2/2, 2) = 1 (A runs out of K80). A: K80 0, V100 3. C: K80 4, V100 1.
//	Round 2: holders B (2), C (1.25). Buyer B, seller C, price = r_C = 1.25.
//	  v = min(2/1.25, 1) = 1 (C runs out of V100). B: K80 2 − 1.25 = 0.75, V100 3.
//	  C: K80 5.25, V100 0. One holder left: done.
//
// K80 equivalents: A 10 → 12, B 6 → 3·2 + 0.75 = 6.75, C 4.5 → 5.25: every
// user gains (C sells above its own speedup), the cluster 20.5 → 24.
func TestMarketThreeUsersTwoTypes(t *testing.T) {
	t.Parallel()
	speed := [][]float64{{4, 1}, {2, 1}, {1.25, 1}}
	m := market([]string{"V100", "K80"}, speed, 2)
	checkTrades(t, m.Run(), []wantTrade{
		{"A", "C", "K80", "V100", 1, 2},
		{"B", "C", "K80", "V100", 1, 1.25},
	})
	checkShares(t, m, [][]float64{{3, 0}, {3, 0.75}, {0, 5.25}})
	for u, want := range []float64{12, 6.75, 5.25} {
		if v := value(m, speed, u); math.Abs(v-want) > 1e-9 {
			t.Errorf("%s: value %v, want %v", m.Users[u], v, want)
		}
	}
}

// Two users, V100, P100 and K80, 2 GPUs of each per user. A's speeds are
// 4, 2, 1 (r V/P = 2, V/K = 4, P/K = 2); B's 1.5, 1.2, 1 (r 1.25, 1.5, 1.2).
// Pairs go fastest first: (V100, P100), (V100, K80), (P100, K80).
//
//	(V100,P100): A buys from B at p = r_B = 1.25; v = min(2/1.25, 2) = 1.6.
//	  A: P100 0, V100 3.6.  B: P100 4, V100 0.4.
//	(V100,K80):  A (r 4) buys from B (r 1.5) at p = 1.5; v = min(2/1.5, 0.4) = 0.4.
//	  A: K80 2 − 0.6 = 1.4, V100 4.  B: K80 2.6, V100 0.
//	(P100,K80):  A holds no P100: no trade.
//
// K80 equivalents: A 2·4 + 2·2 + 2 = 14 → 4·4 + 1.4 = 17.4; B 2·1.5 + 2·1.2
// + 2 = 7.4 → 4·1.2 + 2.6 = 7.4.
func TestMarketTwoUsersThreeTypes(t *testing.T) {
	t.Parallel()
	speed := [][]float64{{4, 2, 1}, {1.5, 1.2, 1}}
	m := market([]string{"V100", "P100", "K80"}, speed, 2)
	checkTrades(t, m.Run(), []wantTrade{
		{"A", "B", "P100", "V100", 1.6, 1.25},
		{"A", "B", "K80", "V100", 0.4, 1.5},
	})
	checkShares(t, m, [][]float64{{4, 0, 1.4}, {0, 4, 2.6}})
	if a, b := value(m, speed, 0), value(m, speed, 1); math.Abs(a-17.4) > 1e-9 || math.Abs(b-7.4) > 1e-9 {
		t.Errorf("values A %v, B %v; want 17.4, 7.4", a, b)
	}
}

// Three users, three types, 2 GPUs of each per user. Speeds (V100, P100,
// K80): A 4, 2, 1; B 2, 1.5, 1; C 1.25, 1.1, 1. Speedups:
//
//	        V/P            V/K    P/K
//	A       2              4      2
//	B       4/3            2      1.5
//	C       1.25/1.1=25/22 1.25   1.1
//
//	(V100,P100) holders A, B, C. A buys from C at p = r_B = 4/3;
//	  v = min(2/(4/3), 2) = 1.5: A P100 0, V100 3.5; C P100 4, V100 0.5.
//	  Then B buys from C at p = r_C = 25/22; v = min(2/(25/22), 0.5) = 0.5:
//	  B P100 2 − 25/44 = 63/44, V100 2.5; C P100 4 + 25/44 = 201/44, V100 0.
//	(V100,K80) holders A (V 3.5, K 2), B (V 2.5, K 2); C has no V100.
//	  A buys from B at p = r_B = 2; v = min(2/2, 2.5) = 1:
//	  A K80 0, V100 4.5; B K80 4, V100 1.5.
//	(P100,K80) holders B (P 63/44, K 4, r 1.5), C (P 201/44, K 2, r 1.1).
//	  B buys from C at p = 1.1; v = min(4/1.1, 201/44) = 40/11:
//	  B K80 0, P100 63/44 + 160/44 = 223/44; C K80 6, P100 41/44.
//
// K80 equivalents: A 14 → 18; B 2·2 + 2·1.5 + 2 = 9 → 1.5·2 + 223/44·1.5 =
// 10.602; C 6.7 → 41/44·1.1 + 6 = 7.025.
func TestMarketThreeUsersThreeTypes(t *testing.T) {
	t.Parallel()
	speed := [][]float64{{4, 2, 1}, {2, 1.5, 1}, {1.25, 1.1, 1}}
	m := market([]string{"V100", "P100", "K80"}, speed, 2)
	checkTrades(t, m.Run(), []wantTrade{
		{"A", "C", "P100", "V100", 1.5, 4.0 / 3},
		{"B", "C", "P100", "V100", 0.5, 1.25 / 1.1},
		{"A", "B", "K80", "V100", 1, 2},
		{"B", "C", "K80", "P100", 4 / 1.1, 1.1},
	})
	checkShares(t, m, [][]float64{{4.5, 0, 0}, {1.5, 223.0 / 44, 0}, {0, 41.0 / 44, 6}})
	for u, want := range []float64{18, 3 + 223.0/44*1.5, 41.0/44*1.1 + 6} {
		if v := value(m, speed, u); math.Abs(v-want) > 1e-9 {
			t.Errorf("%s: value %v, want %v", m.Users[u], v, want)
		}
	}
}

// What a side cannot use limits the volume. Two users, V100 and K80, 2 of
// each, r_A = 4, r_B = 1.5, price 1.5 (as in TestMarketTwoUsersTwoTypes,
// where v = 4/3 unlimited).
//
//	B's demand 4 (all it holds): at p = 1.5 > 1 the seller gains (p − 1)·v
//	  GPUs it cannot use, so v ≤ 0: B leaves, no trade.
//	B's demand 4.5: (1.5 − 1)·v ≤ 0.5 → v = 1: A K80 0.5, V100 3; B K80 3.5, V100 1.
//	A's room on V100 3 (its jobs that can run there): v ≤ 3 − 2 = 1, the same trade.
//	B's room on K80 3: 1.5·v ≤ 3 − 2 → v = 2/3: A K80 1, V100 8/3; B K80 3, V100 4/3.
func TestMarketLimits(t *testing.T) {
	t.Parallel()
	speed := [][]float64{{4, 1}, {1.5, 1}}
	m := market([]string{"V100", "K80"}, speed, 2)
	m.Demand = []float64{100, 4}
	checkTrades(t, m.Run(), nil)
	checkShares(t, m, [][]float64{{2, 2}, {2, 2}})

	m = market([]string{"V100", "K80"}, speed, 2)
	m.Demand = []float64{100, 4.5}
	checkTrades(t, m.Run(), []wantTrade{{"A", "B", "K80", "V100", 1, 1.5}})
	checkShares(t, m, [][]float64{{3, 0.5}, {1, 3.5}})

	m = market([]string{"V100", "K80"}, speed, 2)
	m.Room = [][]float64{{3, 100}, {100, 100}}
	checkTrades(t, m.Run(), []wantTrade{{"A", "B", "K80", "V100", 1, 1.5}})

	m = market([]string{"V100", "K80"}, speed, 2)
	m.Room = [][]float64{{100, 100}, {100, 3}}
	checkTrades(t, m.Run(), []wantTrade{{"A", "B", "K80", "V100", 2.0 / 3, 1.5}})
	checkShares(t, m, [][]float64{{8.0 / 3, 1}, {4.0 / 3, 3}})
}

// Users whose speedup is unknown, or who hold only one type, do not trade,
// and agreeing users do not trade.
func TestMarketNoTrade(t *testing.T) {
	t.Parallel()
	speed := [][]float64{{4, 1}, {1.5, 1}}
	m := market([]string{"V100", "K80"}, speed, 2)
	m.Speedup = func(u, slow, fast int) (float64, bool) { return speed[u][fast] / speed[u][slow], u == 0 }
	checkTrades(t, m.Run(), nil)

	m = market([]string{"V100", "K80"}, speed, 2)
	m.Share[1][0] = 0 // B holds no V100: nothing to sell
	checkTrades(t, m.Run(), nil)

	m = market([]string{"V100", "K80"}, [][]float64{{2, 1}, {2, 1}}, 2)
	checkTrades(t, m.Run(), nil)
}

// Invariants on random markets: every type's total is kept, no share goes
// negative, every price lies between the seller's and the buyer's speedup,
// and no user's value (its own throughput) falls, so neither does the
// cluster's.
func TestMarketRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 2000 {
		nU, nT := 2+rng.IntN(5), 2+rng.IntN(3)
		types := []string{"V100", "P100", "K80", "T4"}[:nT]
		speed := make([][]float64, nU)
		for u := range speed {
			for range nT {
				speed[u] = append(speed[u], 0.5+4*rng.Float64())
			}
		}
		m := market(types, speed, 0)
		total := make([]float64, nT)
		for u := range m.Share {
			for k := range m.Share[u] {
				if rng.IntN(5) > 0 {
					m.Share[u][k] = 8 * rng.Float64()
				}
				total[k] += m.Share[u][k]
			}
		}
		before := make([]float64, nU)
		for u := range before {
			before[u] = value(m, speed, u)
		}
		trades := m.Run()
		if len(trades) > nU*nT*(nT-1)/2 {
			t.Fatalf("it %d: %d trades for %d users and %d types", it, len(trades), nU, nT)
		}
		for _, tr := range trades {
			if tr.Price < tr.SellerSpeedup-1e-12 || tr.Price > tr.BuyerSpeedup+1e-12 || tr.Volume <= 0 {
				t.Fatalf("it %d: trade %+v", it, tr)
			}
		}
		for k := range types {
			sum := 0.0
			for u := range m.Share {
				if m.Share[u][k] < 0 {
					t.Fatalf("it %d: negative share %v", it, m.Share[u][k])
				}
				sum += m.Share[u][k]
			}
			if math.Abs(sum-total[k]) > 1e-9*math.Max(1, total[k]) {
				t.Fatalf("it %d: type %s total %v → %v", it, types[k], total[k], sum)
			}
		}
		for u := range before {
			if v := value(m, speed, u); v < before[u]-1e-9 {
				t.Fatalf("it %d: user %d value %v → %v", it, u, before[u], v)
			}
		}
	}
}

// Three users trade V100 against K80 (TestMarketThreeUsersTwoTypes).
func ExampleMarket() {
	speed := [][]float64{{4, 1}, {2, 1}, {1.25, 1}}
	m := &gandivafair.Market{
		Types: []string{"V100", "K80"},
		Users: []string{"A", "B", "C"},
		Share: [][]float64{{2, 2}, {2, 2}, {2, 2}},
		Speedup: func(u, slow, fast int) (float64, bool) {
			return speed[u][fast] / speed[u][slow], true
		},
	}
	for _, t := range m.Run() {
		fmt.Printf("%s buys %g %s from %s at %g %s each\n", t.Buyer, t.Volume, t.Fast, t.Seller, t.Price, t.Slow)
	}
	fmt.Println(m.Share)
	// Output:
	// A buys 1 V100 from C at 2 K80 each
	// B buys 1 V100 from C at 1.25 K80 each
	// [[3 0] [3 0.75] [0 5.25]]
}
