package check

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"fairbench/models"
)

// SpecOf reads an instance back as a spec when it has the shape
// Spec.Instance writes (the spec's types, users u1..un, jobs numbered in
// user order of their own or a kind's type, history that adds up); ok is
// false otherwise. It is exact: ok means Spec.Instance gives the instance
// back. Replayed counterexamples that were edited by hand still replay;
// they just cannot be shrunk further.
func SpecOf(in *models.Instance) (Spec, bool) {
	s, ok := specOf(in)
	if !ok || s.Valid() != nil {
		return Spec{}, false
	}
	return s, sameInstance(s.Instance(), in)
}

func specOf(in *models.Instance) (Spec, bool) {
	var s Spec
	if len(in.Servers) == 0 || len(in.Servers) > MaxSpecTypes || in.Round < 0 {
		return s, false
	}
	s.Round = in.Round
	split := false
	for g, sg := range in.Servers {
		if sg.Type != specTypes[g].Name || sg.Count < 1 || sg.GPUs < 1 {
			return s, false
		}
		s.GPUs = append(s.GPUs, sg.Count*sg.GPUs)
		s.Servers = append(s.Servers, sg.Count)
		split = split || sg.Count > 1
	}
	if !split {
		s.Servers = nil
	}
	user := map[string]int{}
	for _, u := range in.Users {
		user[u.Name] = len(s.Users)
		s.Users = append(s.Users, UserSpec{Weight: u.Weight})
	}
	for _, ij := range in.Jobs {
		u, ok := user[ij.User]
		if !ok {
			return s, false
		}
		j, ok := s.jobOf(ij)
		if !ok {
			return s, false
		}
		s.Users[u].Jobs = append(s.Users[u].Jobs, j)
	}
	return s, true
}

// jobOf reads one job back (its figures and history).
func (s Spec) jobOf(ij models.InstanceJob) (JobSpec, bool) {
	j := JobSpec{Gang: ij.Gang, Speed: make([]float64, len(s.GPUs))}
	if k, ok := strings.CutPrefix(ij.Type, "kind-"); ok {
		if _, err := fmt.Sscanf(k, "%d", &j.Kind); err != nil || j.Kind < 1 {
			return j, false
		}
	}
	for g := range s.GPUs {
		j.Speed[g] = ij.Throughputs[specTypes[g].Name]
	}
	if s.Round == 0 {
		return j, true
	}
	j.Age = float64(s.Round) - ij.Arrival/specRound
	if len(ij.Received) > 0 {
		j.Received = make([]float64, len(s.GPUs))
		for g := range s.GPUs {
			j.Received[g] = ij.Received[specTypes[g].Name] / specRound
		}
	}
	for g := range s.GPUs {
		if ij.LastType == specTypes[g].Name {
			j.Last = g + 1
		}
	}
	return j, !math.IsNaN(j.Age)
}

// sameInstance compares two instances on what a decision depends on (not
// the note, policy, options, recorded answer or check record).
func sameInstance(a, b *models.Instance) bool {
	strip := func(in *models.Instance) []byte {
		c := *in
		c.Note, c.Policy, c.Options, c.Result, c.Check = "", "", nil, nil, nil
		if len(c.GPUTypes) == 0 {
			c.GPUTypes = specTypes[:len(c.Servers)]
		}
		out, _ := json.Marshal(c)
		return out
	}
	return string(strip(a)) == string(strip(b))
}
