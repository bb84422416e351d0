package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// unknownFlagRE matches pflag's errors for an unknown flag: "unknown flag:
// --polcy" and "unknown shorthand flag: 'x' in -x".
var unknownFlagRE = regexp.MustCompile(`^unknown flag: --([^\s=]+)|^unknown shorthand flag: '(.)'`)

// flagError is the commands' flag error function: it adds the closest
// flag names to an unknown flag ("did you mean --policy?").
func flagError(cmd *cobra.Command, err error) error {
	m := unknownFlagRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	name := m[1]
	if name == "" {
		name = m[2]
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	near := closest(name, names)
	if len(near) == 0 {
		return fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath())
	}
	for i := range near {
		near[i] = "--" + near[i]
	}
	return fmt.Errorf("%w (did you mean %s?)", err, strings.Join(near, " or "))
}

// closest lists the candidates nearest to name: those within an edit
// distance of a third of its length (at least 2), or that it begins or
// that begin with it, nearest first, at most three.
func closest(name string, candidates []string) []string {
	type cand struct {
		s string
		d int
	}
	var out []cand
	limit := max(2, len(name)/3)
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit || (len(name) >= 3 && (strings.HasPrefix(c, name) || strings.HasPrefix(name, c))) {
			out = append(out, cand{c, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	var names []string
	for i := 0; i < len(out) && i < 3; i++ {
		names = append(names, out[i].s)
	}
	return names
}

// editDistance is the Levenshtein distance between a and b (in runes).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// didYouMean is " (did you mean X?)" for the candidates nearest to name,
// "" when none is near.
func didYouMean(name string, candidates []string) string {
	c := closest(name, candidates)
	if len(c) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(c, " or ") + "?)"
}
