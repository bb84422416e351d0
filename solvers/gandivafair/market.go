package gandivafair

import (
	"cmp"
	"math"
	"slices"
)

// Market is one round of Gandiva_fair's automated trading
// (docs/algorithms/gandiva-fair.md, step 2; Chaudhary et al., EuroSys 2020): users swap shares
// of a slow type for shares of a fast one at a second price, so that the
// users who gain most from the fast type hold it, and no user loses.
type Market struct {
	// Types names the GPU types, fastest-ranked first (Cluster.TypeNames).
	Types []string
	// Users names the users.
	Users []string
	// Share[u][k] is user u's share of type k in GPUs; Run changes it.
	Share [][]float64
	// Speedup reports user u's speedup r_u of type fast over type slow
	// (throughput ratio) and whether it is known.
	Speedup func(u, slow, fast int) (float64, bool)
	// Room[u][k], when Room is not nil, bounds Share[u][k]: the GPUs of type
	// k that u's jobs can use. A trade never gives a user share it cannot use.
	Room [][]float64
	// Demand[u], when Demand is not nil, bounds Σ_k Share[u][k].
	Demand []float64
}

// Trade is one exchange: Buyer pays Price·Volume GPUs of Slow to Seller for
// Volume GPUs of Fast.
type Trade struct {
	Buyer  string  `json:"buyer"`
	Seller string  `json:"seller"`
	Slow   string  `json:"slow"`
	Fast   string  `json:"fast"`
	Volume float64 `json:"volume"` // GPUs of the fast type bought
	Price  float64 `json:"price"`  // GPUs of the slow type paid per fast GPU
	// BuyerSpeedup and SellerSpeedup are r_buyer and r_seller of the pair;
	// r_seller ≤ Price ≤ r_buyer.
	BuyerSpeedup  float64 `json:"buyer_speedup"`
	SellerSpeedup float64 `json:"seller_speedup"`

	buyer, seller int
}

// Gains are what the trade earns each party and the cluster, in GPUs of the
// slow type: buyer (r_b − p)·v, seller (p − r_s)·v, cluster (r_b − r_s)·v.
func (t Trade) Gains() (buyer, seller, cluster float64) {
	return (t.BuyerSpeedup - t.Price) * t.Volume, (t.Price - t.SellerSpeedup) * t.Volume,
		(t.BuyerSpeedup - t.SellerSpeedup) * t.Volume
}

// speedupTolerance: a buyer and a seller whose speedups differ by less than
// this relative amount agree, and do not trade.
const speedupTolerance = 1e-9

// Run trades every pair of types, fastest pair first: (0,1), (0,2), …, (1,2),
// … with the fast type first. For a pair, the holders are the users with a
// positive share of both types and a known speedup r of fast over slow.
// Repeat: the buyer is the holder with the highest r, the seller the one
// with the lowest (ties: the earlier user buys, the later sells); stop when
// r_buyer ≤ r_seller. The price p is the r of the holder ranked next below
// the buyer (second price), so r_seller ≤ p ≤ r_buyer. The volume is
//
//	v = min(Share[b][slow] / p, Share[s][fast]),
//
// further bounded, where Room and Demand are given, by what either side can
// use: v ≤ Room[b][fast] − Share[b][fast], p·v ≤ Room[s][slow] −
// Share[s][slow], and the net GPUs a side gains, (1 − p)·v for the buyer or
// (p − 1)·v for the seller, by its unused demand. Then buyer: slow −= p·v,
// fast += v; seller: slow += p·v, fast −= v. The side whose limit bound the
// volume leaves the holders (a limit of zero makes it leave without a
// trade), so each pair ends after fewer trades than it has holders. Run
// returns the trades in the order made.
func (m *Market) Run() []Trade {
	var hs []holder
	return m.run(nil, &hs)
}

// holder is a user taking part in a pair's trading, with its speedup r.
type holder struct {
	u int
	r float64
}

// run is Run appending the trades to out, with *work as work space.
func (m *Market) run(out []Trade, work *[]holder) []Trade {
	base := slices.Grow((*work)[:0], len(m.Users))
	*work = base
	for f := range m.Types {
		for sl := f + 1; sl < len(m.Types); sl++ {
			hs := base[:0]
			for u := range m.Users {
				if m.Share[u][sl] <= eps || m.Share[u][f] <= eps {
					continue
				}
				if r, ok := m.Speedup(u, sl, f); ok && r > 0 && !math.IsInf(r, 0) {
					hs = append(hs, holder{u, r})
				}
			}
			slices.SortStableFunc(hs, func(a, b holder) int { return cmp.Compare(b.r, a.r) })
			for len(hs) >= 2 {
				b, s := hs[0], hs[len(hs)-1]
				if b.r <= s.r*(1+speedupTolerance) {
					break
				}
				p := hs[1].r
				v, buyerBound := m.volume(b.u, s.u, sl, f, p)
				if v > eps {
					m.Share[b.u][sl] = max(0, m.Share[b.u][sl]-p*v)
					m.Share[b.u][f] += v
					m.Share[s.u][sl] += p * v
					m.Share[s.u][f] = max(0, m.Share[s.u][f]-v)
					out = append(out, Trade{Buyer: m.Users[b.u], Seller: m.Users[s.u], Slow: m.Types[sl], Fast: m.Types[f],
						Volume: v, Price: p, BuyerSpeedup: b.r, SellerSpeedup: s.r, buyer: b.u, seller: s.u})
				}
				if buyerBound {
					hs = hs[1:]
				} else {
					hs = hs[:len(hs)-1]
				}
			}
		}
	}
	return out
}

// volume is the largest trade of the pair at price p, and whether the
// buyer's side bound it (else the seller's).
func (m *Market) volume(b, s, slow, fast int, p float64) (float64, bool) {
	v, buyer := m.Share[b][slow]/p, true
	lim := func(x float64, isBuyer bool) {
		x = max(0, x)
		if x < v {
			v, buyer = x, isBuyer
		}
	}
	lim(m.Share[s][fast], false)
	if m.Room != nil {
		lim(m.Room[b][fast]-m.Share[b][fast], true)
		lim((m.Room[s][slow]-m.Share[s][slow])/p, false)
	}
	if m.Demand != nil {
		if p < 1 {
			lim((m.Demand[b]-sum(m.Share[b]))/(1-p), true)
		} else if p > 1 {
			lim((m.Demand[s]-sum(m.Share[s]))/(p-1), false)
		}
	}
	return v, buyer
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}
