package check

import (
	"fmt"
	"slices"
)

// Bound delimits the bounded exhaustive search: every instance with at most
// Users users (one job each), at most Types GPU types with 1..GPUs GPUs each,
// job speeds from Speeds on every type (0 = cannot run), gangs from Gangs and
// user weights from Weights. Users are enumerated as a multiset (in a
// canonical order), which assumes the policy treats users alike up to their
// names and order; GPU types are not permuted (their rank order matters to
// some policies). Strategy-proofness is searched over every misreport whose
// speeds lie in Speeds, besides the random search's moves.
type Bound struct {
	Level   int       `json:"level"`
	Users   int       `json:"users"`
	Types   int       `json:"types"`
	GPUs    int       `json:"gpus"`
	Speeds  []float64 `json:"speeds"`
	Gangs   []int     `json:"gangs"`
	Weights []float64 `json:"weights"`
}

// DefaultBound is the level `fairbench check` uses unless told otherwise.
const DefaultBound = 2

// BoundLevel returns the bound of a level:
//
//	0  no exhaustive search
//	1  ≤ 2 users, ≤ 2 types, 1 GPU per type, speeds {1, 2}, gang 1, weight 1
//	2  ≤ 2 users, ≤ 2 types, ≤ 2 GPUs per type, speeds {0, 1, 2}, gangs {1, 2}, weights {1, 2}
//	3  ≤ 3 users, ≤ 2 types, ≤ 3 GPUs per type, speeds {0, 1, 2, 4}, gangs {1, 2}, weights {1, 2}
//	4  ≤ 3 users, ≤ 3 types, ≤ 3 GPUs per type, speeds {0, 1, 2, 4}, gangs {1, 2}, weights {1, 2}
//
// Level 1 has 19 instances, level 2 1,638, level 3 282,322 and level 4
// some 70 million (for offline runs only).
func BoundLevel(level int) (Bound, error) {
	switch level {
	case 0:
		return Bound{Level: 0}, nil
	case 1:
		return Bound{Level: 1, Users: 2, Types: 2, GPUs: 1, Speeds: []float64{1, 2}, Gangs: []int{1}, Weights: []float64{1}}, nil
	case 2:
		return Bound{Level: 2, Users: 2, Types: 2, GPUs: 2, Speeds: []float64{0, 1, 2}, Gangs: []int{1, 2}, Weights: []float64{1, 2}}, nil
	case 3:
		return Bound{Level: 3, Users: 3, Types: 2, GPUs: 3, Speeds: []float64{0, 1, 2, 4}, Gangs: []int{1, 2}, Weights: []float64{1, 2}}, nil
	case 4:
		return Bound{Level: 4, Users: 3, Types: 3, GPUs: 3, Speeds: []float64{0, 1, 2, 4}, Gangs: []int{1, 2}, Weights: []float64{1, 2}}, nil
	}
	return Bound{}, fmt.Errorf("check: bound %d: levels are 0 to 4", level)
}

func (b Bound) String() string {
	if b.Users == 0 {
		return "no exhaustive search"
	}
	return fmt.Sprintf("bound %d: ≤ %d users × ≤ %d types × ≤ %d GPUs/type, speeds %v, gangs %v, weights %v",
		b.Level, b.Users, b.Types, b.GPUs, b.Speeds, b.Gangs, b.Weights)
}

// Specs lists every valid instance within b, smallest first: by number of
// types, then GPU counts, then number of users, then the users' descriptors
// in lexicographic order.
func (b Bound) Specs() []Spec {
	var out []Spec
	if b.Users == 0 {
		return out
	}
	for nt := 1; nt <= b.Types; nt++ {
		for _, gpus := range tuples(nt, b.GPUs) {
			descs := b.descriptors(gpus)
			for nu := 1; nu <= b.Users; nu++ {
				for _, pick := range multisets(len(descs), nu) {
					s := Spec{GPUs: slices.Clone(gpus)}
					for _, i := range pick {
						d := descs[i]
						s.Users = append(s.Users, UserSpec{Weight: d.Weight,
							Jobs: []JobSpec{{Gang: d.Jobs[0].Gang, Speed: slices.Clone(d.Jobs[0].Speed)}}})
					}
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// descriptors are the single-job users the cluster gpus can run.
func (b Bound) descriptors(gpus []int) []UserSpec {
	var out []UserSpec
	for _, w := range b.Weights {
		for _, gang := range b.Gangs {
			for _, sp := range speedVectors(len(gpus), b.Speeds) {
				j := JobSpec{Gang: gang, Speed: sp}
				if (Spec{GPUs: gpus, Users: []UserSpec{{Weight: w, Jobs: []JobSpec{j}}}}).Valid() == nil {
					out = append(out, UserSpec{Weight: w, Jobs: []JobSpec{j}})
				}
			}
		}
	}
	return out
}

// tuples lists every vector of n values in 1..max.
func tuples(n, max int) [][]int {
	out := [][]int{{}}
	for i := 0; i < n; i++ {
		var next [][]int
		for _, t := range out {
			for v := 1; v <= max; v++ {
				next = append(next, append(slices.Clone(t), v))
			}
		}
		out = next
	}
	return out
}

// speedVectors lists every vector of n speeds from grid.
func speedVectors(n int, grid []float64) [][]float64 {
	out := [][]float64{{}}
	for i := 0; i < n; i++ {
		var next [][]float64
		for _, t := range out {
			for _, v := range grid {
				next = append(next, append(slices.Clone(t), v))
			}
		}
		out = next
	}
	return out
}

// multisets lists the non-decreasing index vectors of length k over 0..n-1.
func multisets(n, k int) [][]int {
	var out [][]int
	cur := make([]int, k)
	var rec func(pos, from int)
	rec = func(pos, from int) {
		if pos == k {
			out = append(out, slices.Clone(cur))
			return
		}
		for i := from; i < n; i++ {
			cur[pos] = i
			rec(pos+1, i)
		}
	}
	rec(0, 0)
	return out
}
