package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"fairbench/calibrate"
	"fairbench/calibrate/nvmlprobe"
	"fairbench/internal/version"
)

// openProbe opens NVML; tests replace it with go-nvml's mock.
var openProbe = nvmlprobe.Open

// exitWith is an error that prints as err and exits with code.
type exitWith struct {
	err  error
	code exitCode
}

func (e exitWith) Error() string   { return e.err.Error() }
func (e exitWith) Unwrap() []error { return []error{e.err, e.code} }

// noNVML turns "NVML unavailable" into exit status 2.
func noNVML(err error) error {
	if errors.Is(err, calibrate.ErrNoNVML) {
		return exitWith{err: err, code: 2}
	}
	return err
}

func newCalibrate(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure training throughput on this machine's GPUs and add it to a throughput matrix",
		Long: `calibrate measures real per-model training throughput on the GPUs attached to this
machine (NVML telemetry alongside) and turns it into a GPU type of the throughput
matrix that scenarios use with 'throughputs: FILE':

  devices      list the GPUs NVML sees (exit status 2 without an NVIDIA driver)
  run          measure every entry of a profile (devices × models × batch sizes × gangs),
               with peak memory, and its co-location pairs when it has a colocate section
  colocate     measure only the profile's co-location pairs (alone and paired)
  merge        add calibration results to a Gavel-format matrix file (and write the
               gpu_types block, the merged record and, with --scenario, a scenario)
  extrapolate  estimate an unmeasured GPU type from its datasheet
  workload     print the built-in training script (torch_train.py)

The path from a new GPU to a report, in four commands (docs/calibration.md):

  fairbench calibrate run --profile b200.yaml --out cal
  fairbench calibrate merge cal/b200.json cal/b200.calibration.json --scenario cal/scenario.yaml
  fairbench simulate cal/scenario.yaml --out cal/sim
  fairbench report cal/sim --out cal/report`,
	}
	cmd.AddCommand(newCalibrateDevices(s), newCalibrateRun(s, false), newCalibrateRun(s, true), newCalibrateMerge(s),
		newCalibrateExtrapolate(), newCalibrateWorkload())
	return cmd
}

func newCalibrateDevices(s *settings) *cobra.Command {
	var lib string
	var asJSON bool
	var sampleSeconds float64
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the GPUs, driver and CUDA versions NVML reports",
		Long: `devices lists every GPU NVML reports: index, UUID, name, memory, SM count, maximum SM and
memory clocks, power limit, PCIe link, MIG mode, and the catalogue type its figures would be
filed under; and the driver and CUDA versions. Without an NVIDIA driver (or in a build
without cgo) it says so and exits with status 2.

--sample-seconds N also samples every GPU's telemetry at 10 Hz for N seconds and reports
what that cost this process in CPU time (the telemetry's overhead during 'run').`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := openProbe(lib)
			if err != nil {
				return noNVML(err)
			}
			defer p.Close()
			sys, err := p.System()
			if err != nil {
				return noNVML(err)
			}
			w := cmd.OutOrStdout()
			var cost *calibrate.SamplingCost
			if sampleSeconds > 0 {
				var idx []int
				for _, d := range sys.Devices {
					idx = append(idx, d.Index)
				}
				c, err := calibrate.MeasureSampling(p, idx, 10, time.Duration(sampleSeconds*float64(time.Second)))
				if err != nil {
					return err
				}
				cost = &c
			}
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					calibrate.System
					Sampling *calibrate.SamplingCost `json:"sampling,omitempty"`
				}{sys, cost})
			}
			printDevices(w, sys)
			if cost != nil {
				fmt.Fprintf(w, "\ntelemetry sampling: %d GPUs at %g Hz for %.1f s: %d readings, %v CPU = %.3f%% of one core (%v per reading)\n",
					cost.GPUs, cost.Hz, cost.Wall.Seconds(), cost.Readings, cost.CPU.Round(time.Microsecond), 100*cost.CoreFrac, cost.PerReading.Round(time.Microsecond))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lib, "nvml-lib", nvmlprobe.DefaultLibrary, "the NVML library to load")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().Float64Var(&sampleSeconds, "sample-seconds", 0, "also measure the CPU cost of sampling every GPU at 10 Hz for this long")
	return cmd
}

func printDevices(w io.Writer, sys calibrate.System) {
	fmt.Fprintf(w, "driver %s, CUDA %s, NVML %s (%s)\n", sys.DriverVersion, sys.CUDAVersion, sys.NVMLVersion, sys.Library)
	if len(sys.Devices) == 0 {
		fmt.Fprintln(w, "no GPUs")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tNAME\tUUID\tMEMORY\tSMS\tMAX SM/MEM MHZ\tPOWER LIMIT\tPCIE NOW (MAX)\tMIG\tTYPE")
	for _, d := range sys.Devices {
		typ, err := calibrate.CatalogueGPUType(d.Name, d.MemoryBytes)
		if err != nil {
			typ = "? (give gpu_type)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.1f GiB\t%s\t%s/%s\t%s W\tgen%s x%s (gen%s x%s)\t%s\t%s\n",
			d.Index, d.Name, d.UUID, float64(d.MemoryBytes)/(1<<30), known(d.SMCount), known(d.MaxSMClockMHz), known(d.MaxMemClockMHz),
			known(d.PowerLimitW), known(d.PCIeGen), known(d.PCIeWidth), known(d.PCIeMaxGen), known(d.PCIeMaxWidth), d.MIG, typ)
	}
	tw.Flush()
	// Notes, once for each set of GPUs that share them.
	var order []string
	byNotes := map[string][]string{}
	for _, d := range sys.Devices {
		if len(d.Notes) == 0 {
			continue
		}
		n := strings.Join(d.Notes, "; ")
		if byNotes[n] == nil {
			order = append(order, n)
		}
		byNotes[n] = append(byNotes[n], fmt.Sprint(d.Index))
	}
	for _, n := range order {
		fmt.Fprintf(w, "GPU %s: not reported (shown as ?): %s\n", strings.Join(byNotes[n], ","), n)
	}
}

// known prints a number, or "?" for the zero of a field NVML did not report.
func known[T int | uint32 | float64](v T) string {
	if v == 0 {
		return "?"
	}
	return fmt.Sprint(v)
}

func newCalibrateRun(s *settings, onlyPairs bool) *cobra.Command {
	var profile, python, lib string
	cmd := &cobra.Command{
		Use:   "run --profile FILE",
		Short: "Measure the training throughput and memory of every entry of a calibration profile",
		Long: `run measures every device × model × batch size × gang size of a profile (YAML or JSON; see
'go doc fairbench/calibrate Spec' and docs/calibration.md): it starts the training workload
pinned to its GPUs, samples NVML at sample_hz, drops the warm-up, waits for a steady step
time and records steps/s and samples/s with 95% confidence intervals, power, energy per
sample, peak memory (NVML's on a GPU; on the CPU the process's peak resident set, a CPU
figure) and throttling. A profile with a colocate section then measures its pairs (see
'calibrate colocate'). Results go to --out as <name>.calibration.json (every entry, with
provenance and telemetry) and <name>.throughputs.json (the Gavel-format matrix; an entry
that ran out of memory is a 0, "does not fit"), rewritten after each entry, so Ctrl-C
leaves both valid. An entry that crashes, hangs or prints garbage is recorded with its
stderr tail, the run goes on, and the command exits 1 at the end.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if profile == "" {
				return fmt.Errorf("calibrate %s: --profile FILE is required", cmd.Name())
			}
			spec, err := calibrate.ReadSpec(profile)
			if err != nil {
				return err
			}
			if onlyPairs && spec.Colocate == nil {
				return fmt.Errorf("calibrate colocate: profile %s has no colocate section (pairs to run)", profile)
			}
			var probe calibrate.Probe
			if spec.NeedsNVML() {
				if probe, err = openProbe(lib); err != nil {
					return noNVML(err)
				}
				defer probe.Close()
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			total := len(spec.AllEntries()) + len(spec.PairEntries())
			r := &calibrate.Runner{Spec: spec, Probe: probe, OutDir: s.out(), Version: version.String(), OnlyPairs: onlyPairs,
				Python: s.v.GetString("python"), Progress: runProgress(cmd.ErrOrStderr(), total)}
			if python != "" {
				r.Python = python
			}
			rec, err := r.Run(ctx)
			if rec != nil {
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "%s: %d entries and %d pairs measured; %s", spec.Name, len(rec.Entries), len(rec.Pairs), r.RecordPath())
				if _, serr := os.Stat(r.MatrixPath()); serr == nil {
					fmt.Fprintf(w, ", %s", r.MatrixPath())
				}
				fmt.Fprintln(w)
				printEntries(w, rec.Entries)
				printPairs(w, rec.Pairs)
				printMemory(w, calibrate.FitMemory(rec.Entries))
			}
			if errors.Is(err, calibrate.ErrInterrupted) {
				return exitWith{err: fmt.Errorf("%w; the files hold the entries that finished", err), code: 130}
			}
			return noNVML(err)
		},
	}
	if onlyPairs {
		cmd.Use = "colocate --profile FILE"
		cmd.Short = "Measure co-location interference: pairs of workloads sharing the same GPUs"
		cmd.Long = `colocate runs the pairs of a profile's colocate section: both workloads of a pair at the
same time on the same device(s) — time-sliced, and with MPS (mode mps) where the machine has
it — at gang sizes 1, 2, 4 and 8 where the device has the GPUs (or colocate.gang_sizes).
Each workload is first measured alone (as 'calibrate run' measures an entry), then paired:
each gets its own steady-state search and 95% confidence interval; the one measured first
keeps running until its partner is measured. A pair whose alone memory peaks add up to
more than the device holds, or that runs out of memory paired, is recorded as "cannot
share" (a [0, 0] pair in Gavel's format, which forbids co-locating the two). On the CPU
both are torch processes on the same cores. Results go to --out like 'calibrate run'; the
pairs are in <name>.throughputs.json in Gavel's pair format and in the record, where
'calibrate merge' and a scenario's 'calibration:' key take them.`
	}
	cmd.Flags().StringVar(&profile, "profile", "", "the calibration profile (YAML or JSON)")
	cmd.Flags().StringVar(&python, "python", "", "the Python interpreter that runs the workload (default: the profile's python, else "+calibrate.DefaultPython+")")
	cmd.Flags().StringVar(&lib, "nvml-lib", nvmlprobe.DefaultLibrary, "the NVML library to load")
	return cmd
}

// ciString formats a confidence interval.
func ciString(iv *calibrate.Interval) string {
	if iv == nil {
		return "-"
	}
	if iv.High == nil {
		return fmt.Sprintf("[%.4g, ∞)", iv.Low)
	}
	return fmt.Sprintf("[%.4g, %.4g]", iv.Low, *iv.High)
}

func entryLine(e *calibrate.Entry) string {
	switch e.Status {
	case calibrate.StatusOK:
		s := fmt.Sprintf("%.4g steps/s %s, %.4g samples/s", e.StepsPerSecond, ciString(e.StepsPerSecondCI), e.SamplesPerSecond)
		if !e.StepTime.Steady {
			s += fmt.Sprintf(" (NOT steady: CV %.1f%%)", 100*e.StepTime.CV)
		}
		if t := e.Telemetry; t != nil && t.EnergyFrom != "" {
			s += fmt.Sprintf(", %.0f W, %.3g J/sample", t.MeanPowerW, t.EnergyPerSampleJ)
			if len(t.Throttle) > 0 {
				s += ", throttled: " + strings.Join(t.Throttle, ",")
			}
		}
		return s
	case calibrate.StatusDoesNotFit:
		return "does not fit (out of memory): " + e.OOM
	}
	tail := e.StderrTail
	if lines := strings.Split(tail, "\n"); len(lines) > 5 {
		tail = strings.Join(lines[len(lines)-5:], "\n")
	}
	if tail != "" {
		tail = "\n    stderr: " + strings.ReplaceAll(tail, "\n", "\n            ")
	}
	return "FAILED: " + e.Error + tail
}

func printEntries(w io.Writer, es []calibrate.Entry) {
	for i := range es {
		e := &es[i]
		line := entryLine(e)
		if e.MemoryBytes > 0 {
			line += fmt.Sprintf(", memory %.4g MB (%s)", float64(e.MemoryBytes)/1e6, memoryWhat(e.MemoryFrom))
		}
		fmt.Fprintf(w, "  %s on %s ×%d (%s): %s\n", e.JobType, e.GPUType, e.Gang, e.DeviceName, line)
	}
}

// memoryWhat says what a memory figure is; a CPU figure says so.
func memoryWhat(from string) string {
	switch from {
	case calibrate.MemoryFromCPURSS:
		return "CPU: peak RSS, not a GPU figure"
	case calibrate.MemoryFromNVML:
		return "NVML peak used"
	default:
		return "PyTorch peak reserved"
	}
}

func pairLine(p *calibrate.PairEntry) string {
	switch p.Status {
	case calibrate.PairOK:
		s := fmt.Sprintf("%s %.4g → %.4g steps/s %s (ξ %.3g), %s %.4g → %.4g steps/s %s (ξ %.3g)",
			p.A.JobType, p.A.AloneStepsPerSecond, p.A.PairedStepsPerSecond, ciString(p.A.PairedCI), p.A.Slowdown,
			p.B.JobType, p.B.AloneStepsPerSecond, p.B.PairedStepsPerSecond, ciString(p.B.PairedCI), p.B.Slowdown)
		if p.Reason != "" {
			s += " (" + p.Reason + ")"
		}
		return s
	case calibrate.PairCannotShare:
		return "cannot share: " + p.Reason
	}
	return "FAILED: " + p.Reason
}

func printPairs(w io.Writer, ps []calibrate.PairEntry) {
	for i := range ps {
		p := &ps[i]
		fmt.Fprintf(w, "  pair on %s ×%d (%s, %s): %s\n", p.GPUType, p.Gang, p.DeviceName, p.Mode, pairLine(p))
	}
}

// printMemory prints the memory model fits.
func printMemory(w io.Writer, fits []calibrate.MemoryFit) {
	if len(fits) == 0 {
		return
	}
	fmt.Fprintln(w, "memory model (fixed + per-sample × batch, per worker):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FAMILY\tGPU TYPE\tGANG\tMEASURED\tBATCH SIZES\tFIXED GB\tPER SAMPLE MB\tHELD-BACK BATCH\tPREDICTED GB\tMEASURED GB\tERROR")
	for _, f := range fits {
		var bs []string
		for _, p := range f.Points {
			bs = append(bs, fmt.Sprint(p.BatchSize))
		}
		held := "-\t-\t-\t-"
		if f.HeldBackBatch > 0 {
			held = fmt.Sprintf("%d\t%.3f\t%.3f\t%+.1f%%", f.HeldBackBatch, f.HeldBackPredicted/1e9, float64(f.HeldBackMeasured)/1e9, 100*f.HeldBackError)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%.3f\t%.2f\t%s\n", f.Family, f.GPUType, f.Gang, memoryWhat(f.From), strings.Join(bs, ","),
			f.FixedBytes/1e9, f.PerSampleBytes/1e6, held)
	}
	tw.Flush()
}

// runProgress shows a bar on a terminal and plain lines otherwise.
func runProgress(w io.Writer, total int) func(calibrate.Progress) {
	if fd, ok := w.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetDescription("calibrating"))
		return func(p calibrate.Progress) {
			switch {
			case p.Done != nil || p.PairDone != nil:
				_ = bar.Add(1)
			case p.Pair != nil:
				bar.Describe(fmt.Sprintf("pair %s: step %d, %s", p.Pair, p.Step, p.Phase))
			default:
				bar.Describe(fmt.Sprintf("%s on %s ×%d: step %d, %s", p.Entry.JobType(), p.Entry.Device.Device, p.Entry.Gang, p.Step, p.Phase))
			}
		}
	}
	last := map[int]calibrate.Phase{}
	return func(p calibrate.Progress) {
		head := fmt.Sprintf("[%d/%d] %s on %s ×%d", p.Index+1, p.Total, p.Entry.JobType(), p.Entry.Device.Device, p.Entry.Gang)
		if p.Pair != nil {
			head = fmt.Sprintf("[%d/%d] pair %s", p.Index+1, p.Total, p.Pair)
		}
		switch {
		case p.Done != nil:
			fmt.Fprintf(w, "%s: %s\n", head, entryLine(p.Done))
		case p.PairDone != nil:
			fmt.Fprintf(w, "%s: %s\n", head, pairLine(p.PairDone))
		case p.Step == 0:
			fmt.Fprintf(w, "%s: starting\n", head)
		case last[p.Index] != p.Phase:
			last[p.Index] = p.Phase
			fmt.Fprintf(w, "%s: step %d, %s\n", head, p.Step, p.Phase)
		}
	}
}

func newCalibrateMerge(s *settings) *cobra.Command {
	var output, scenario, sharing string
	var gpuTypes []string
	cmd := &cobra.Command{
		Use:   "merge BASE.json INPUT... [--output OUT.json] [--scenario FILE]",
		Short: "Add calibration results to a Gavel-format throughput matrix file",
		Long: `merge adds the figures of each INPUT — a calibration record (<name>.calibration.json from
'calibrate run' or 'calibrate colocate') or a Gavel-format throughput file — to BASE.json
and writes the result to --output (default: BASE.json itself).

BASE.json is the throughput matrix you are adding to, in the format of Gavel's
simulation_throughputs.json. It need not exist: name a new file (cal/b200.json) to start
an empty one, or give an earlier merge's output, or a copy of Gavel's own file, to add the
new figures to it. Scenarios read it with 'throughputs: FILE', over the built-in catalogue.

Later inputs win; every replaced figure is listed. The records' measured co-location pairs
(--sharing: timeslice, or mps) go into the matrix in Gavel's pair format, scaled so that
each keeps its measured slowdown. Beside the output go OUT.calibration.json, the merged
record (every measurement with its provenance: what a scenario's 'calibration:' key reads
for job types' memory_gb and fixed_memory_gb and for the pairs; a later merge into OUT.json
keeps it), and, when the output names GPU types the catalogue lacks, OUT.gpu_types.yaml,
the gpu_types block a scenario needs. --scenario FILE also writes a ready scenario that uses
all of them. Every file is written completely or not at all, Ctrl-C included.

A GPU type the catalogue lacks must be declared: a record declares its own (its profile's
gpu_types); for a Gavel-format file give --gpu-types FILE, any YAML or JSON file with a
gpu_types list (a datasheet file, a profile or a scenario).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := calibrate.Merge(args[0], args[1:], calibrate.MergeOptions{Output: output, Sharing: sharing,
				Version: version.String(), DeclaredFiles: gpuTypes, Scenario: scenario})
			if err != nil {
				return err
			}
			werr := calibrate.WriteAll(rep.Files)
			if werr != nil && !errors.Is(werr, calibrate.ErrInterrupted) {
				return werr
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: %d figures (%d before, %d added, %d replaced, %d unchanged), %d pair figures; GPU types merged: %s\n",
				rep.Output, rep.Total, rep.Base, rep.Added, len(rep.Replaced), rep.Same, rep.Pairs, strings.Join(rep.GPUTypes, ", "))
			for _, c := range rep.Replaced {
				fmt.Fprintf(w, "  replaced %v: %.6g → %.6g (from %s)\n", c.Key, c.Old, c.New, c.From)
			}
			for _, p := range slices.Sorted(maps.Keys(rep.Files)) {
				if p != rep.Output {
					fmt.Fprintf(w, "wrote %s\n", p)
				}
			}
			printMemory(w, rep.Memory)
			if werr != nil {
				return exitWith{err: werr, code: 130}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "", "write the merged matrix here instead of BASE.json")
	cmd.Flags().StringVar(&scenario, "scenario", "", "also write a scenario that uses the merged files")
	cmd.Flags().StringVar(&sharing, "sharing", calibrate.ModeTimeSlice, "the co-location mode whose pairs go into the matrix: timeslice or mps")
	cmd.Flags().StringSliceVar(&gpuTypes, "gpu-types", nil, "a file with a gpu_types list declaring GPU types the catalogue lacks (repeatable)")
	return cmd
}

func newCalibrateExtrapolate() *cobra.Command {
	var gpus, measured, datasheets []string
	var method, output string
	var tf32, asJSON bool
	cmd := &cobra.Command{
		Use:   "extrapolate --gpu TYPE [--datasheet FILE]",
		Short: "Estimate throughput on an unmeasured GPU type from its datasheet",
		Long: `extrapolate estimates every job type with a counted cost (Gavel's ResNet-18, ResNet-50
and LM, the Sia cifar10 and imagenet jobs, calibrate's own models) on GPU type TYPE from
its datasheet (peak FLOP/s by precision, memory bandwidth and size) and per-job efficiency
factors fitted on the measured types: the catalogue's figures plus any --measured file
(calibration records or Gavel-format files). The catalogue's types have built-in
datasheets (calibrate/data/gpus.json); a type the catalogue lacks needs one: --datasheet
FILE (a YAML or JSON file with a gpu_types list of {name, memory_gb, rank, peak_tflops:
{fp32, tf32, fp16}, memory_bandwidth_gb_s, source}), or a --measured record whose profile
declares it with its peaks. It first reports the leave-one-type-out error on the measured
types — how far to trust the estimates. TYPE's own measured figures, if any, are left out
of the fit and shown beside the estimates. --output writes the estimates as a Gavel-format
file (and FILE.extrapolation.json with the method and errors); they are estimates, not
measurements.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			x, err := calibrate.Extrapolate(calibrate.ExtrapolateRequest{GPUs: gpus, Datasheets: datasheets, Measured: measured,
				Options: calibrate.ExtrapolateOptions{Method: method, TF32: tf32}, Output: output})
			if err != nil {
				return err
			}
			if x.Files != nil {
				if err := calibrate.WriteAll(x.Files); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(x)
			}
			printLOO(w, x.LOO)
			for _, n := range x.Types {
				fmt.Fprintf(w, "\nestimates for %s (%s):\n", n, x.Sources[n])
				printEstimates(w, x.Estimates[n])
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&gpus, "gpu", nil, "GPU type to estimate (repeatable)")
	cmd.Flags().StringSliceVar(&datasheets, "datasheet", nil, "a file with a gpu_types list giving the datasheet of a type the catalogue lacks (repeatable)")
	cmd.Flags().StringSliceVar(&measured, "measured", nil, "more measured figures: a calibration record or Gavel-format file (repeatable)")
	cmd.Flags().StringVar(&method, "method", calibrate.DefaultMethod, "two-term or roofline")
	cmd.Flags().BoolVar(&tf32, "tf32", false, "take fp32 jobs at the TF32 tensor-core peak on Ampere and newer")
	cmd.Flags().StringVar(&output, "output", "", "write the estimates as a Gavel-format file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printLOO(w io.Writer, r calibrate.LOOReport) {
	fmt.Fprintf(w, "leave-one-type-out error of the %s model (tf32 %v): each type's figures estimated from the other types'\n", r.Method, r.TF32)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU TYPE\tFIGURES\tMEDIAN |ERR|\tMEAN |ERR|\tMAX |ERR|\tBIAS\tWITHIN ±25%")
	for _, t := range append(r.Types, r.All) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%+.1f%%\t%.0f%%\n", t.GPU, t.N, 100*t.MedianAbs, 100*t.MeanAbs, 100*t.MaxAbs, 100*t.Bias, 100*t.Within25)
	}
	tw.Flush()
}

func printEstimates(w io.Writer, es []calibrate.Estimate) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB TYPE\tGANG\tSTEPS/S\tBOUND\tFITTED ON\tMEASURED")
	for _, e := range es {
		v := fmt.Sprintf("%.4g", e.StepsPerSecond)
		if e.DoesNotFit != "" {
			v = "0 (does not fit: " + e.DoesNotFit + ")"
		}
		meas := "-"
		if e.Measured != nil {
			meas = fmt.Sprintf("%.4g", *e.Measured)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", e.Job, e.Gang, v, e.Bound, strings.Join(e.FittedOn, ","), meas)
	}
	tw.Flush()
}

func newCalibrateWorkload() *cobra.Command {
	return &cobra.Command{
		Use:   "workload",
		Short: "Print the built-in training workload (torch_train.py) to stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(calibrate.WorkloadScript())
			return err
		},
	}
}
