package check

import (
	"math"
	"slices"
)

// Shrinks lists the specs one step smaller than s, most drastic first:
// a user removed, a job removed, a GPU type removed, a server or a GPU
// less, a type's servers merged into one, the history dropped (round 0),
// a job taken out of its shared type, a weight set to 1 (or, when not an
// integer, rounded), a gang set to 1, a speed lowered to a smaller value of
// the grid (or to 1) or set to 0, two speeds of a job made equal. Only valid
// specs are listed. Shrinking repeats the first step that keeps the
// property failing, so counterexamples end up locally minimal.
func (s Spec) Shrinks(grid []float64) []Spec {
	var out []Spec
	add := func(c Spec) {
		if c.Valid() == nil {
			out = append(out, c)
		}
	}
	for _, f := range []func(func(Spec)){s.shrinkUsers, s.shrinkJobs, s.shrinkTypes, s.shrinkServers, s.shrinkHistory,
		s.shrinkKinds, s.shrinkWeights, s.shrinkGangs} {
		f(add)
	}
	s.shrinkSpeeds(grid, add)
	return out
}

func (s Spec) shrinkUsers(add func(Spec)) {
	for u := range s.Users {
		if len(s.Users) > 1 {
			c := s.clone()
			c.Users = slices.Delete(c.Users, u, u+1)
			add(c)
		}
	}
}

func (s Spec) shrinkJobs(add func(Spec)) {
	for u := range s.Users {
		for k := range s.Users[u].Jobs {
			c := s.clone()
			c.Users[u].Jobs = slices.Delete(c.Users[u].Jobs, k, k+1)
			add(c)
		}
	}
}

func (s Spec) shrinkTypes(add func(Spec)) {
	if len(s.GPUs) < 2 {
		return
	}
	for g := range s.GPUs {
		c := s.clone()
		c.GPUs = slices.Delete(c.GPUs, g, g+1)
		if c.Servers != nil {
			c.Servers = slices.Delete(c.Servers, g, g+1)
		}
		for u := range c.Users {
			for k := range c.Users[u].Jobs {
				j := &c.Users[u].Jobs[k]
				j.Speed = slices.Delete(j.Speed, g, g+1)
				if j.Received != nil {
					j.Received = slices.Delete(j.Received, g, g+1)
				}
				switch {
				case j.Last == g+1:
					j.Last = 0
				case j.Last > g+1:
					j.Last--
				}
			}
		}
		add(c)
	}
}

// shrinkServers drops a server (or, for one server, a GPU), then merges a
// type's servers into one.
func (s Spec) shrinkServers(add func(Spec)) {
	for g := range s.GPUs {
		k := s.servers(g)
		c := s.clone()
		switch {
		case k > 1:
			c.GPUs[g] -= s.GPUs[g] / k
			c.Servers[g]--
		case s.GPUs[g] > 1:
			c.GPUs[g]--
		default:
			continue
		}
		add(c)
	}
	for g := range s.GPUs {
		if s.servers(g) > 1 {
			c := s.clone()
			c.Servers[g] = 1
			add(c)
		}
	}
}

func (s Spec) shrinkHistory(add func(Spec)) {
	if s.Round == 0 {
		return
	}
	c := s.clone()
	c.Round = 0
	for u := range c.Users {
		for k := range c.Users[u].Jobs {
			j := &c.Users[u].Jobs[k]
			j.Age, j.Received, j.Last = 0, nil, 0
		}
	}
	add(c)
}

func (s Spec) shrinkKinds(add func(Spec)) {
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			if j.Kind > 0 {
				c := s.clone()
				c.Users[u].Jobs[k].Kind = 0
				add(c)
			}
		}
	}
}

func (s Spec) shrinkWeights(add func(Spec)) {
	for u, us := range s.Users {
		for _, w := range []float64{1, math.Round(us.Weight)} {
			if us.Weight != w && w > 0 {
				c := s.clone()
				c.Users[u].Weight = w
				add(c)
			}
		}
	}
}

func (s Spec) shrinkGangs(add func(Spec)) {
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			if j.Gang > 1 {
				c := s.clone()
				c.Users[u].Jobs[k].Gang = 1
				add(c)
			}
		}
	}
}

func (s Spec) shrinkSpeeds(grid []float64, add func(Spec)) {
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			for g, t := range j.Speed {
				for _, v := range smaller(t, grid) {
					c := s.clone()
					c.Users[u].Jobs[k].Speed[g] = v
					add(c)
				}
			}
		}
	}
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			for g := range j.Speed {
				for h := g + 1; h < len(j.Speed); h++ {
					if j.Speed[g] != j.Speed[h] && j.Speed[g] > 0 && j.Speed[h] > 0 {
						c := s.clone()
						v := math.Min(j.Speed[g], j.Speed[h])
						c.Users[u].Jobs[k].Speed[g], c.Users[u].Jobs[k].Speed[h] = v, v
						add(c)
					}
				}
			}
		}
	}
}

// smaller lists the values a speed t shrinks to: 0, 1, and the grid values
// below t, smallest first.
func smaller(t float64, grid []float64) []float64 {
	var out []float64
	if t > 0 {
		out = append(out, 0)
	}
	if t > 1 {
		out = append(out, 1)
	}
	for _, v := range grid {
		if v > 1 && v < t {
			out = append(out, v)
		}
	}
	return out
}
