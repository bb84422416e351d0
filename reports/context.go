package reports

import (
	"fmt"
	"strings"

	"fairbench/scenarios"
)

// What ran, in words, for figure titles and captions: a figure seen
// alone must tell the scenario, the grid point and the seeds.

// scenarioNote is "scenario NAME, N policies, seeds 1, 2".
func (s *Set) scenarioNote() string {
	_, _, scenarios, _ := s.metadata()
	seeds := make([]string, len(s.Seeds))
	for i, sd := range s.Seeds {
		seeds[i] = fmt.Sprint(sd)
	}
	word := "seeds"
	if len(seeds) == 1 {
		word = "seed"
	}
	pols := fmt.Sprintf("%d policies", len(s.Policies))
	if len(s.Policies) == 1 {
		pols = "policy " + s.Policies[0]
	}
	return fmt.Sprintf("scenario %s, %s, %s %s", joinOr(scenarios, "-"), pols, word, strings.Join(seeds, ", "))
}

// subtitle is what a figure's image says under its title: the scenario,
// the grid point p (when the set has several; nil for none) and a note.
func (s *Set) subtitle(p *Point, note string) string {
	parts := []string{capitalise(s.scenarioNote())}
	if p != nil && len(s.Points) > 1 {
		parts = append(parts, s.pointWords(s.Axes, p.Values))
	}
	if note != "" {
		parts = append(parts, note)
	}
	return strings.Join(parts, " · ")
}

// titleAt adds the grid point to a title when the set has several.
func (s *Set) titleAt(title string, p *Point) string {
	if len(s.Points) == 1 {
		return title
	}
	return title + " at " + s.pointWords(s.Axes, p.Values)
}

// pointWords writes the values of axes in words: "arrival rate (jobs/h)
// = 2, V100 servers = 3".
func (s *Set) pointWords(axes []string, vals map[string]any) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = s.axisLabel(a) + " = " + formatValue(vals[a])
	}
	return strings.Join(parts, ", ")
}

// axisWords name the grid axes most often swept, with their units.
var axisWords = map[string]string{
	"workload.arrival_rate_per_hour":     "arrival rate (jobs/h)",
	"workload.jobs":                      "jobs",
	"round_seconds":                      "round length (s)",
	"user_count":                         "users",
	"preemption.bandwidth_gb_per_second": "restore bandwidth (GB/s)",
}

// axisLabel names a grid axis in words. The axis is a field path of the
// scenario (cluster.servers[2].count); a list element is named by its
// name or type field, read from the runs' spec: cluster.servers[2].count
// is "V100 servers", users[1].weight "weight of user bob". Other paths
// become their last field's words with a unit (restore_seconds →
// "restore (s)"), qualified by the element or key they sit under.
func (s *Set) axisLabel(axis string) string {
	if l, ok := axisWords[axis]; ok {
		return l
	}
	steps := scenarios.SplitPath(axis)
	if len(steps) == 0 {
		return axis
	}
	var spec any
	if len(s.Runs) > 0 {
		spec = scenarios.GenericSpec(s.Runs[0].Record.Spec)
	}
	// The nearest enclosing list element's name or type, and the list.
	qual, list := "", ""
	for i := len(steps) - 2; i >= 0; i-- {
		idx, ok := steps[i].(int)
		if !ok {
			continue
		}
		if i > 0 {
			list, _ = steps[i-1].(string)
		}
		if m, ok := lookup(spec, steps[:i+1]).(map[string]any); ok {
			for _, k := range []string{"name", "type", "id"} {
				if v, ok := m[k].(string); ok && v != "" {
					qual = v
					break
				}
			}
		}
		if qual == "" {
			qual = fmt.Sprintf("#%d", idx+1)
		}
		break
	}
	leaf, _ := steps[len(steps)-1].(string)
	switch {
	case leaf == "count" && list == "servers" && strings.HasPrefix(qual, "#"):
		return "servers in group " + qual[1:]
	case leaf == "count" && list == "servers":
		return qual + " servers"
	case leaf == "gpus_per_server" && list == "servers":
		return "GPUs per " + qual + " server"
	case list == "users" && qual != "":
		return words(leaf) + " of user " + qual
	case strings.HasSuffix(axis, `"]`) && len(steps) > 1:
		// A quoted key (preemption.seconds["A3C"]): its parent's words.
		if p, ok := steps[len(steps)-2].(string); ok {
			return words(p) + " (" + leaf + ")"
		}
		return leaf
	case qual != "":
		return words(leaf) + " (" + qual + ")"
	}
	return words(leaf)
}

// lookup follows a field path into a decoded spec (nil when it does not
// resolve).
func lookup(v any, steps []any) any {
	for _, st := range steps {
		switch c := v.(type) {
		case map[string]any:
			k, ok := st.(string)
			if !ok {
				return nil
			}
			v = c[k]
		case []any:
			i, ok := st.(int)
			if !ok || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// unitSuffixes turn a field name's unit suffix into words.
var unitSuffixes = []struct{ suffix, unit string }{
	{"_gb_per_second", "(GB/s)"}, {"_per_hour", "(per hour)"}, {"_per_second", "(per second)"},
	{"_seconds", "(s)"}, {"_hours", "(h)"}, {"_gb", "(GB)"}, {"_pct", "(%)"}, {"_s", "(s)"}, {"_h", "(h)"},
}

// words writes a field name in words: restore_seconds → "restore (s)".
func words(field string) string {
	unit := ""
	for _, u := range unitSuffixes {
		if strings.HasSuffix(field, u.suffix) && len(field) > len(u.suffix) {
			field, unit = strings.TrimSuffix(field, u.suffix), " "+u.unit
			break
		}
	}
	return strings.ReplaceAll(field, "_", " ") + unit
}
