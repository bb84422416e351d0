package nash

import (
	"encoding/binary"
	"fmt"
	"math"

	"fairbench/models"
)

// Built is a Market built from a snapshot, with the jobs behind each class.
type Built struct {
	Market *Market
	// Types are the GPU type names, in the cluster's TypeNames order.
	Types []string
	// Jobs[c] are the indices (into the snapshot's Jobs) of class c's jobs.
	Jobs [][]int
	// Users[i] is the user name of buyer i (user markets only).
	Users []string
}

// Speeds reads the snapshot's throughputs: T[j][g] for every active job and
// type. A job that no type can run (every figure 0, or a gang larger than
// every type) has no speeds (nil): the markets leave it out, and it gets
// nothing (a misreport can make a job look so).
func Speeds(s *models.Snapshot) ([]string, [][]float64, error) {
	types := s.Cluster.TypeNames()
	out := make([][]float64, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		out[i] = make([]float64, len(types))
		best := 0.0
		for g, t := range types {
			out[i][g] = s.Throughput(&j.Job, t)
			best = math.Max(best, out[i][g])
		}
		fits := false
		for g, t := range types {
			fits = fits || (out[i][g] > 0 && j.Gang <= s.Cluster.Capacity(t))
		}
		if best <= 0 || !fits {
			out[i] = nil
		}
	}
	return types, out, nil
}

// normalised is T/max_g T: progress in units of the job's best speed, the
// utility unit of the fairness predicates (models.Division).
func normalised(t []float64) []float64 {
	best := 0.0
	for _, v := range t {
		best = math.Max(best, v)
	}
	out := make([]float64, len(t))
	for g, v := range t {
		out[g] = v / best
	}
	return out
}

// UserMarket is the market of s with one buyer per user that has active
// jobs (in s.Users order, budget = the user's weight) and a job's utility
// per unit of time on type g its speed there over its best speed. With
// aggregate, a user's jobs of equal gang and normalised speeds form one
// class (the welfare is symmetric in them, so some optimum gives them equal
// shares; the utilities, and so the allocation up to such symmetry, are the
// same); otherwise every job is its own class.
func UserMarket(s *models.Snapshot, aggregate bool) (*Built, error) {
	types, speeds, err := Speeds(s)
	if err != nil {
		return nil, err
	}
	b := &Built{Market: &Market{}, Types: types}
	for _, t := range types {
		b.Market.Caps = append(b.Market.Caps, float64(s.Cluster.Capacity(t)))
	}
	buyer := map[string]int{}
	for i := range s.Jobs {
		if speeds[i] != nil {
			buyer[s.Jobs[i].User] = -1
		}
	}
	for _, u := range s.Users {
		if _, ok := buyer[u.Name]; ok && buyer[u.Name] < 0 {
			buyer[u.Name] = len(b.Market.Weights)
			b.Market.Weights = append(b.Market.Weights, u.Weight)
			b.Users = append(b.Users, u.Name)
		}
	}
	class := map[string]int{}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if speeds[i] == nil {
			continue
		}
		bi, ok := buyer[j.User]
		if !ok || bi < 0 {
			return nil, fmt.Errorf("job %d: unknown user %q", j.ID, j.User)
		}
		a := normalised(speeds[i])
		key := fmt.Sprint(i)
		if aggregate {
			key = string(classKey(bi, j.Gang, a))
		}
		c, ok := class[key]
		if !ok {
			c = len(b.Market.Classes)
			class[key] = c
			b.Market.Classes = append(b.Market.Classes, Class{Buyer: bi, Gang: float64(j.Gang), Value: a})
			b.Jobs = append(b.Jobs, nil)
		}
		b.Market.Classes[c].Count++
		b.Jobs[c] = append(b.Jobs[c], i)
	}
	return b, nil
}

// JobMarket is the market of s with every job its own agent of weight 1
// (users play no part), its utility per unit of time on type g its speed
// there over its best speed (any per-job scale gives the same optimum and
// the same discounts). With aggregate, jobs of equal gang and normalised
// speeds form one buyer standing for that many identical agents
// (Market.Agents) with one class; otherwise every job is a buyer.
func JobMarket(s *models.Snapshot, aggregate bool) (*Built, error) {
	types, speeds, err := Speeds(s)
	if err != nil {
		return nil, err
	}
	b := &Built{Market: &Market{Agents: []float64{}}, Types: types}
	for _, t := range types {
		b.Market.Caps = append(b.Market.Caps, float64(s.Cluster.Capacity(t)))
	}
	class := map[string]int{}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if speeds[i] == nil {
			continue
		}
		a := normalised(speeds[i])
		key := fmt.Sprint(i)
		if aggregate {
			key = string(classKey(0, j.Gang, a))
		}
		c, ok := class[key]
		if !ok {
			c = len(b.Market.Classes)
			class[key] = c
			b.Market.Classes = append(b.Market.Classes, Class{Buyer: c, Gang: float64(j.Gang), Value: a})
			b.Market.Weights = append(b.Market.Weights, 0)
			b.Market.Agents = append(b.Market.Agents, 0)
			b.Jobs = append(b.Jobs, nil)
		}
		b.Market.Classes[c].Count++
		b.Market.Weights[c]++
		b.Market.Agents[c]++
		b.Jobs[c] = append(b.Jobs[c], i)
	}
	return b, nil
}

func classKey(buyer, gang int, a []float64) []byte {
	k := binary.LittleEndian.AppendUint64(nil, uint64(buyer))
	k = binary.LittleEndian.AppendUint64(k, uint64(gang))
	for _, v := range a {
		k = binary.LittleEndian.AppendUint64(k, math.Float64bits(v))
	}
	return k
}

// zeroShare is the share below which a solver value is taken to be 0.
const zeroShare = 1e-12

// Fractions gives every job of class c the share scale[c]·X[c][g]/k_c of
// type g (scale nil: 1), after scaling x down by the one factor that
// removes any rounding excess over a capacity or time cap, and dropping
// shares below 1e-12.
func (b *Built) Fractions(s *models.Snapshot, x [][]float64, scale []float64) map[models.JobID]map[string]float64 {
	x = shrink(b.Market, x)
	fr := map[models.JobID]map[string]float64{}
	for c, cl := range b.Market.Classes {
		f := 1.0
		if scale != nil {
			f = scale[c]
		}
		for g, v := range x[c] {
			share := f * v / cl.Count
			if share < zeroShare {
				continue
			}
			for _, i := range b.Jobs[c] {
				id := s.Jobs[i].ID
				if fr[id] == nil {
					fr[id] = map[string]float64{}
				}
				fr[id][b.Types[g]] = math.Min(1, share)
			}
		}
	}
	return fr
}
