package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"fairbench/models"
)

// PrintReport writes a report as a table: one line per property with the
// claim (and its conditions), its verdict, the unconditional verdict beside
// it, how it was checked and how fast; then the reasons and counterexample
// files.
func PrintReport(w io.Writer, r *Report) {
	fmt.Fprintf(w, "policy %s — claims: %s\n", r.Policy, ClaimList(r.Claims))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "property\tclaimed\tstatus\tunconditional\tchecked\tseconds")
	for _, res := range r.Results {
		claimed := ""
		if res.Claimed {
			claimed = "yes"
			if len(res.Conditions) > 0 {
				claimed = "under " + strings.Join(res.Conditions, ", ")
			}
		}
		uncond := ""
		if res.Unconditional != nil {
			uncond = string(res.Unconditional.Status)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\n", res.Property, claimed, statusWord(res), uncond, checkedWord(res), res.Seconds)
	}
	tw.Flush()
	if r.Instances > 0 {
		fmt.Fprintf(w, "%d single-decision instances in %.1f s: %.0f instances/s\n", r.Instances, r.Seconds, r.Rate)
	}
	for _, res := range r.Results {
		printDetail(w, res, "")
		if res.Unconditional != nil {
			printDetail(w, *res.Unconditional, " (unconditional)")
		}
	}
}

func printDetail(w io.Writer, res Result, label string) {
	if res.Status == Holds && res.Reason == "" {
		return
	}
	scope := label
	if len(res.Conditions) > 0 {
		scope = " (under " + strings.Join(res.Conditions, ", ") + ")"
	}
	fmt.Fprintf(w, "\n%s%s (%s): %s\n", res.Property, scope, res.Status, res.Reason)
	switch {
	case res.Counterexample != "" && res.Status == Errored:
		fmt.Fprintf(w, "  instance the policy failed on: %s\n", res.Counterexample)
	case res.Counterexample != "":
		fmt.Fprintf(w, "  counterexample: %s (replay: fairbench check --replay %s)\n", res.Counterexample, res.Counterexample)
	}
	if res.Relaxed > 0 {
		fmt.Fprintf(w, "  not judged: %d instances with gangs above one GPU (realised mode)\n", res.Relaxed)
	}
	if res.Status != Holds {
		fmt.Fprintf(w, "  property: %s\n  checked: %s\n", res.Formula, res.Method)
		if res.Source != "" {
			fmt.Fprintf(w, "  claimed by: %s\n", res.Source)
		}
	}
}

// ClaimList prints claims with their conditions: "feasible (implicit),
// sharing-incentive [equal-weights], envy-free".
func ClaimList(c []models.Claim) string {
	parts := []string{"feasible (implicit)"}
	for _, cl := range c {
		s := cl.Property
		if len(cl.Conditions) > 0 {
			s += " [" + strings.Join(cl.Conditions, ", ") + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// statusWord is the status, upper case for a violated claim.
func statusWord(res Result) string {
	if res.Status == Violated && res.Claimed {
		return "VIOLATED"
	}
	return string(res.Status)
}

func checkedWord(res Result) string {
	switch {
	case res.Kind == "temporal":
		return fmt.Sprintf("%d workloads", res.Workloads)
	case res.Method == "replay":
		return "replay"
	}
	s := fmt.Sprintf("%d exhaustive + %d random", res.Exhaustive, res.Random)
	if res.Relaxed > 0 {
		s += fmt.Sprintf(" (%d not judged)", res.Relaxed)
	}
	return s
}

// JUnit XML, as CI systems read it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnit renders reports as JUnit XML: one test suite per policy, one test
// case per property. A claim violated under its conditions is a failure, a
// policy failure an error, and a property the policy does not claim is
// skipped (its outcome, violations included, in the message: information,
// not a failure).
func JUnit(reps ...*Report) ([]byte, error) {
	var out junitSuites
	for _, r := range reps {
		s := junitSuite{Name: "fairbench check " + r.Policy}
		for _, res := range r.Results {
			c := junitCaseOf(r.Policy, res)
			switch {
			case res.Status == Errored:
				c.Error = &junitMessage{Message: res.Reason, Type: "policy failure", Body: junitBody(res)}
			case !res.Claimed:
				c.Skipped = &junitMessage{Message: fmt.Sprintf("not claimed (%s): %s", res.Status, res.Reason)}
			case res.Status == Violated:
				c.Failure = &junitMessage{Message: res.Reason, Type: "violated", Body: junitBody(res)}
			}
			s.add(c, res.Seconds)
		}
		out.Suites = append(out.Suites, s)
	}
	return out.encode()
}

// junitCaseOf is the test case of one result, without a verdict.
func junitCaseOf(policy string, res Result) junitCase {
	name := res.Property
	if len(res.Conditions) > 0 {
		name += " [" + strings.Join(res.Conditions, ", ") + "]"
	}
	out := res.Formula + "\nchecked: " + res.Method
	if res.Unconditional != nil {
		out += fmt.Sprintf("\nunconditional: %s %s", res.Unconditional.Status, res.Unconditional.Reason)
	}
	return junitCase{Name: name, ClassName: "fairbench.check." + fileStem(policy),
		Time: strconv.FormatFloat(res.Seconds, 'f', 3, 64), SystemOut: out}
}

func junitBody(res Result) string {
	body := res.Reason
	if res.Counterexample != "" {
		body += "\ncounterexample: " + res.Counterexample
	}
	return body
}

// add counts a case into the suite.
func (s *junitSuite) add(c junitCase, seconds float64) {
	switch {
	case c.Error != nil:
		s.Errors++
	case c.Failure != nil:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
	s.Tests++
	t, _ := strconv.ParseFloat(s.Time, 64)
	s.Time = strconv.FormatFloat(t+seconds, 'f', 3, 64)
}

func (out junitSuites) encode() ([]byte, error) {
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}
