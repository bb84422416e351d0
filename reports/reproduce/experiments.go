package reproduce

import (
	"fairbench/reports"
)

// Experiment is one seed paper's experiment as a built-in grid.
type Experiment struct {
	// Name is what `fairbench reproduce NAME` takes.
	Name string
	// Title heads the report.
	Title string
	// Paper is the citation.
	Paper string
	// Setting says what the paper ran, in a sentence or two.
	Setting string
	// Policies run in this order (the paper's policy first). A policy this
	// build does not register is skipped with a notice.
	Policies []Policy
	// Preset names the scenario in scenarios/examples the experiment runs
	// (its policies replaced by Policies, its keys changed by FullSet or,
	// with --quick, QuickSet); else Grid and Quick name the scenario files
	// in grids/ (without policies: they are appended from Policies).
	Preset            string
	FullSet, QuickSet map[string]any
	Grid, Quick       string
	// Traces, when set, are the trace files the scenario reads, by name
	// (written next to the scenario).
	Traces func(quick bool) map[string][]byte
	// Deviations say where the grid departs from the paper's setting, and
	// why; QuickDeviations what --quick reduces further.
	Deviations, QuickDeviations []string
	// Headlines are the published numbers printed beside ours.
	Headlines []Headline
	// Variations change one setting each; they run after the grid and
	// measure which setting moves a headline (the sensitivity table).
	Variations []Variation
	// Extra are tables of the experiment's own added to the report.
	Extra []func(r *Results) *reports.NamedTable
}

// Policy is one policy of an experiment, with its options.
type Policy struct {
	Name    string
	Options map[string]any
}

// Experiments is the table of built-in experiments, in the order
// `fairbench reproduce` lists them. Extend it here.
var Experiments = []*Experiment{fftExperiment, sjfbsbfExperiment, gandivaExperiment, gavelExperiment}

// Lookup finds an experiment by name.
func Lookup(name string) (*Experiment, bool) {
	for _, e := range Experiments {
		if e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// Names lists the experiments.
func Names() []string {
	out := make([]string, len(Experiments))
	for i, e := range Experiments {
		out[i] = e.Name
	}
	return out
}

const (
	fftPaper     = "Mo, Xu, Lau. Fast and Fair Training for Deep Learning in Heterogeneous GPU Clusters. ICS 2025, DOI 10.1145/3721145.3728488"
	sjfbsbfPaper = "Luo, Wang, Shi, Lai, Qi, Zhang, Wang. Scheduling Deep Learning Jobs in Multi-Tenant GPU Clusters via Wise Resource Sharing. IWQoS 2024, DOI 10.1109/IWQoS61813.2024.10682877 (arXiv 2407.13088)"
	gandivaPaper = "Chaudhary, Ramjee, Sivathanu, Kwatra, Viswanatha. Balancing Efficiency and Fairness in Heterogeneous GPU Clusters for Deep Learning. EuroSys 2020, DOI 10.1145/3342195.3387555"
	gavelPaper   = "Narayanan, Santhanam, Kazhamiaka, Phanishayee, Zaharia. Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads. OSDI 2020"
)
