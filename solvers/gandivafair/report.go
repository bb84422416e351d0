package gandivafair

import (
	"math"
	"time"

	"fairbench/models"
)

// Report is what gandiva-fair records over a run (solvers.Reporter; the
// simulator stores it as the result's policy_report). Shares are integrated
// over time: a decision's shares are in force until the next decision.
type Report struct {
	Trading       bool   `json:"trading"`
	Profile       string `json:"profile"`
	QuantumRounds int    `json:"quantum_rounds"`
	Decisions     int    `json:"decisions"`
	Quanta        int    `json:"quanta"`
	// Seconds is the time the integrals cover (first to last decision).
	Seconds float64 `json:"seconds"`
	// Markets lists every trade made: a market outcome is recorded at the
	// decision where it first differs from the previous decision's (other
	// participants, or a volume or price changed by more than
	// MarketTolerance) and is in force until the next record. An empty
	// Trades list records that trading stopped.
	Markets []MarketRecord `json:"markets,omitempty"`
	// Trades counts the trades in Markets.
	Trades int `json:"trades"`
	// TradeGain is Σ over trades in force of (r_buyer − r_seller)·v·dt: the
	// cluster throughput trading added, in GPU-seconds of each trade's slow
	// type (the sum of the users' gains; never negative).
	TradeGain float64      `json:"trade_gain_gpu_s"`
	Users     []UserReport `json:"users"`
	// TypeMoves counts jobs moved between GPU types at quantum starts (of
	// which TypeMigrations were running and pay the restore cost);
	// BalanceMoves counts jobs the load balancer moved between servers of a
	// type (BalanceMigrations of them running); Borrowed counts jobs run
	// on another server of their type to use free GPUs.
	TypeMoves         int `json:"type_moves"`
	TypeMigrations    int `json:"type_migrations"`
	BalanceMoves      int `json:"balance_moves"`
	BalanceMigrations int `json:"balance_migrations"`
	Borrowed          int `json:"borrowed"`
	// Consolidations counts quanta in which a large job ran on servers
	// emptied for it (see the package comment, step 7).
	Consolidations int `json:"consolidations"`
}

// MarketRecord is one market outcome and when it took effect.
type MarketRecord struct {
	Time   float64 `json:"t_s"`
	Round  int     `json:"round"`
	Trades []Trade `json:"trades"`
}

// UserReport is one user's shares before and after trading, integrated over
// the run (GPU-seconds per GPU type), and what trading earned it.
type UserReport struct {
	Name        string             `json:"name"`
	ShareBefore map[string]float64 `json:"share_before_gpu_s"`
	ShareAfter  map[string]float64 `json:"share_after_gpu_s"`
	// TradeGain is Σ over its trades in force of (r_b − p)·v·dt as a buyer
	// and (p − r_s)·v·dt as a seller, in GPU-seconds of each trade's slow
	// type: what it gained over its no-trade shares, valued by its own
	// speedups. Second pricing keeps every term ≥ 0.
	TradeGain float64 `json:"trade_gain_gpu_s"`
}

// MarketTolerance is the relative change in a trade's volume or price that
// makes a new market record.
const MarketTolerance = 1e-6

// recorder accumulates the report.
type recorder struct {
	decisions, quanta int
	seconds           float64
	before, after     [][]float64 // [u][k] GPU-seconds
	gain              []float64   // [u]
	clusterGain       float64

	curBefore, curAfter [][]float64 // in force since the last decision
	curGain             []float64
	curCluster          float64

	markets []MarketRecord
	last    []Trade

	typeMoves, typeMigrations, balanceMoves, balanceMigrations, borrowed, consolidations int
}

func (r *recorder) init(nU, nT int) {
	*r = recorder{before: matrix(nU, nT), after: matrix(nU, nT), gain: make([]float64, nU)}
}

// advance integrates what was in force over dt.
func (r *recorder) advance(dt time.Duration) {
	t := dt.Seconds()
	r.seconds += t
	for u := range r.curBefore {
		for k := range r.curBefore[u] {
			r.before[u][k] += r.curBefore[u][k] * t
			r.after[u][k] += r.curAfter[u][k] * t
		}
		r.gain[u] += r.curGain[u] * t
	}
	r.clusterGain += r.curCluster * t
}

// record notes decision d made on s.
func (r *recorder) record(st *state, s *models.Snapshot, d *decision, quantum bool) {
	r.decisions++
	if quantum {
		r.quanta++
	}
	r.curBefore, r.curAfter = d.before, d.share // d's storage is reused after the next advance
	if r.curGain == nil {
		r.curGain = make([]float64, len(d.before))
	}
	clear(r.curGain)
	r.curCluster = 0
	for _, t := range d.trades {
		b, sl, c := t.Gains()
		r.curGain[t.buyer] += b
		r.curGain[t.seller] += sl
		r.curCluster += c
	}
	if !sameTrades(r.last, d.trades) && (len(r.markets) > 0 || len(d.trades) > 0) {
		r.markets = append(r.markets, MarketRecord{Time: s.Now.Seconds(), Round: s.Round, Trades: append([]Trade{}, d.trades...)})
		r.last = r.markets[len(r.markets)-1].Trades // d.trades is reused
	}
}

func sameTrades(a, b []Trade) bool {
	if len(a) != len(b) {
		return false
	}
	close := func(x, y float64) bool { return math.Abs(x-y) <= MarketTolerance*max(math.Abs(x), math.Abs(y)) }
	for i := range a {
		if a[i].buyer != b[i].buyer || a[i].seller != b[i].seller || a[i].Slow != b[i].Slow || a[i].Fast != b[i].Fast ||
			!close(a[i].Volume, b[i].Volume) || !close(a[i].Price, b[i].Price) {
			return false
		}
	}
	return true
}

func (r *recorder) build(st *state) *Report {
	rep := &Report{Decisions: r.decisions, Quanta: r.quanta, Seconds: r.seconds, Markets: r.markets,
		TradeGain: r.clusterGain, TypeMoves: r.typeMoves, TypeMigrations: r.typeMigrations,
		BalanceMoves: r.balanceMoves, BalanceMigrations: r.balanceMigrations, Borrowed: r.borrowed,
		Consolidations: r.consolidations}
	for _, m := range r.markets {
		rep.Trades += len(m.Trades)
	}
	for u, x := range st.users {
		ur := UserReport{Name: x.Name, ShareBefore: map[string]float64{}, ShareAfter: map[string]float64{}, TradeGain: r.gain[u]}
		for k, g := range st.types {
			ur.ShareBefore[g] = r.before[u][k]
			ur.ShareAfter[g] = r.after[u][k]
		}
		rep.Users = append(rep.Users, ur)
	}
	return rep
}
