package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"fairbench/internal/atomicfile"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"fairbench/calibrate"
	"fairbench/calibrate/nvmlprobe"
	"fairbench/internal/version"
	"fairbench/models"
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
  run          measure every entry of a profile (devices × models × batch sizes × gangs)
  merge        add calibration results to a Gavel-format matrix file
  extrapolate  estimate an unmeasured GPU type from its datasheet
  workload     print the built-in training script (torch_train.py)`,
	}
	cmd.AddCommand(newCalibrateDevices(s), newCalibrateRun(s), newCalibrateMerge(), newCalibrateExtrapolate(), newCalibrateWorkload())
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

func newCalibrateRun(s *settings) *cobra.Command {
	var profile, python, lib string
	cmd := &cobra.Command{
		Use:   "run --profile FILE",
		Short: "Measure the training throughput of every entry of a calibration profile",
		Long: `run measures every device × model × batch size × gang size of a profile (YAML or JSON; see
'go doc fairbench/calibrate Spec'): it starts the training workload pinned to its GPUs,
samples NVML at sample_hz, drops the warm-up, waits for a steady step time and records
steps/s and samples/s with 95% confidence intervals, power, energy per sample, peak memory
and throttling. Results go to --out as <name>.calibration.json (every entry, with
provenance and telemetry) and <name>.throughputs.json (the Gavel-format matrix; an entry
that ran out of memory is a 0, "does not fit"), rewritten after each entry, so Ctrl-C
leaves both valid. An entry that crashes, hangs or prints garbage is recorded with its
stderr tail, the run goes on, and the command exits 1 at the end.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if profile == "" {
				return errors.New("calibrate run: --profile FILE is required")
			}
			spec, err := calibrate.ReadSpec(profile)
			if err != nil {
				return err
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
			r := &calibrate.Runner{Spec: spec, Probe: probe, OutDir: s.out(), Version: version.String(),
				Python: s.v.GetString("python"), Progress: runProgress(cmd.ErrOrStderr(), len(spec.Entries()))}
			rec, err := r.Run(ctx)
			if rec != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d of %d entries measured; %s", spec.Name, len(rec.Entries), len(spec.Entries()), r.RecordPath())
				if _, serr := os.Stat(r.MatrixPath()); serr == nil {
					fmt.Fprintf(cmd.OutOrStdout(), ", %s", r.MatrixPath())
				}
				fmt.Fprintln(cmd.OutOrStdout())
				printEntries(cmd.OutOrStdout(), rec.Entries)
			}
			if errors.Is(err, calibrate.ErrInterrupted) {
				return exitWith{err: fmt.Errorf("%w; the files hold the entries that finished", err), code: 130}
			}
			return noNVML(err)
		},
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
		fmt.Fprintf(w, "  %s on %s ×%d (%s): %s\n", e.JobType, e.GPUType, e.Gang, e.DeviceName, entryLine(e))
	}
}

// runProgress shows a bar on a terminal and plain lines otherwise.
func runProgress(w io.Writer, total int) func(calibrate.Progress) {
	if fd, ok := w.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetDescription("calibrating"))
		return func(p calibrate.Progress) {
			switch {
			case p.Done != nil:
				_ = bar.Add(1)
			default:
				bar.Describe(fmt.Sprintf("%s on %s ×%d: step %d, %s", p.Entry.JobType(), p.Entry.Device.Device, p.Entry.Gang, p.Step, p.Phase))
			}
		}
	}
	last := map[int]calibrate.Phase{}
	return func(p calibrate.Progress) {
		head := fmt.Sprintf("[%d/%d] %s on %s ×%d", p.Index+1, p.Total, p.Entry.JobType(), p.Entry.Device.Device, p.Entry.Gang)
		switch {
		case p.Done != nil:
			fmt.Fprintf(w, "%s: %s\n", head, entryLine(p.Done))
		case p.Step == 0:
			fmt.Fprintf(w, "%s: starting\n", head)
		case last[p.Index] != p.Phase:
			last[p.Index] = p.Phase
			fmt.Fprintf(w, "%s: step %d, %s\n", head, p.Step, p.Phase)
		}
	}
}

func newCalibrateMerge() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "merge MATRIX.json INPUT...",
		Short: "Add calibration results to a Gavel-format throughput matrix file",
		Long: `merge adds the figures of each INPUT — a calibration record (<name>.calibration.json)
or a Gavel-format throughput file — to MATRIX.json (created if missing; rewritten
atomically, or written to --output). Later inputs win; every replaced figure is listed.
Scenarios use the result with 'throughputs: MATRIX.json', over the built-in catalogue.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := calibrate.MergeFiles(args[0], args[1:], output)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: %d figures (%d before, %d added, %d replaced, %d unchanged); GPU types merged: %s\n",
				rep.Output, rep.Total, rep.Base, rep.Added, len(rep.Replaced), rep.Same, strings.Join(rep.GPUTypes, ", "))
			for _, c := range rep.Replaced {
				fmt.Fprintf(w, "  replaced %v: %.6g → %.6g (from %s)\n", c.Key, c.Old, c.New, c.From)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "", "write the merged matrix here instead of MATRIX.json")
	return cmd
}

func newCalibrateExtrapolate() *cobra.Command {
	var gpus, measured []string
	var method, output string
	var tf32, asJSON bool
	cmd := &cobra.Command{
		Use:   "extrapolate --gpu TYPE",
		Short: "Estimate throughput on an unmeasured GPU type from its datasheet",
		Long: `extrapolate estimates every job type with a counted cost (Gavel's ResNet-18, ResNet-50
and LM, the Sia cifar10 and imagenet jobs, calibrate's own models) on GPU type TYPE from
its datasheet (peak FLOP/s by precision, memory bandwidth and size; calibrate/data/gpus.json)
and per-job efficiency factors fitted on the measured types: the catalogue's figures plus
any --measured file (calibration records or Gavel-format files). It first reports the
leave-one-type-out error on the measured types — how far to trust the estimates. TYPE's own
measured figures, if any, are left out of the fit and shown beside the estimates.
--output writes the estimates as a Gavel-format file (and FILE.extrapolation.json with
the method and errors); they are estimates, not measurements.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(gpus) == 0 {
				return errors.New("calibrate extrapolate: --gpu TYPE is required")
			}
			data, err := calibrate.BuiltinData()
			if err != nil {
				return err
			}
			m := models.Catalogue().Matrix
			memory := map[string]uint64{}
			for _, f := range measured {
				fm, err := calibrate.LoadMatrix(f)
				if err != nil {
					return err
				}
				m.Merge(fm)
				if rec, err := calibrate.ReadRecord(f); err == nil {
					for _, e := range rec.Entries {
						memory[e.JobType] = max(memory[e.JobType], e.PeakTorchMemBytes)
					}
				}
			}
			x, err := calibrate.NewExtrapolator(data, m, memory, calibrate.ExtrapolateOptions{Method: method, TF32: tf32})
			if err != nil {
				return err
			}
			loo := x.LeaveOneTypeOut()
			out := struct {
				LOO       calibrate.LOOReport             `json:"leave_one_type_out"`
				Estimates map[string][]calibrate.Estimate `json:"estimates"`
				Sources   map[string]string               `json:"datasheets"`
			}{LOO: loo, Estimates: map[string][]calibrate.Estimate{}, Sources: map[string]string{}}
			est := models.NewMatrix()
			for _, g := range gpus {
				t, ok := data.GPUs[canonicalGPU(g)]
				if !ok {
					return fmt.Errorf("calibrate extrapolate: --gpu %q: no datasheet (have: %s)", g, strings.Join(sortedDatasheets(data), ", "))
				}
				es, err := x.Estimates(t.Type)
				if err != nil {
					return err
				}
				out.Estimates[t.Type] = es
				out.Sources[t.Type] = t.Source
				for _, e := range es {
					k := models.Key{Job: e.Job, GPU: e.GPU, Gang: e.Gang}
					if err := est.Set(k, e.StepsPerSecond, "fairbench calibrate extrapolate"); err != nil {
						return err
					}
				}
			}
			if output != "" {
				gav, err := calibrate.EncodeGavel(est)
				if err != nil {
					return err
				}
				side, _ := json.MarshalIndent(out, "", "  ")
				if err := atomicfile.Write(output, gav); err != nil {
					return err
				}
				if err := atomicfile.Write(strings.TrimSuffix(output, filepath.Ext(output))+".extrapolation.json", append(side, '\n')); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			printLOO(w, loo)
			for _, g := range gpus {
				t := data.GPUs[canonicalGPU(g)]
				fmt.Fprintf(w, "\nestimates for %s (%s):\n", t.Type, t.Source)
				printEstimates(w, out.Estimates[t.Type])
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&gpus, "gpu", nil, "GPU type to estimate (repeatable)")
	cmd.Flags().StringSliceVar(&measured, "measured", nil, "more measured figures: a calibration record or Gavel-format file (repeatable)")
	cmd.Flags().StringVar(&method, "method", calibrate.DefaultMethod, "two-term or roofline")
	cmd.Flags().BoolVar(&tf32, "tf32", false, "take fp32 jobs at the TF32 tensor-core peak on Ampere and newer")
	cmd.Flags().StringVar(&output, "output", "", "write the estimates as a Gavel-format file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func canonicalGPU(name string) string {
	for _, t := range models.Catalogue().GPUTypes {
		if strings.EqualFold(t.Name, name) {
			return t.Name
		}
	}
	return name
}

func sortedDatasheets(d *calibrate.ExtrapolationData) []string {
	var out []string
	for n := range d.GPUs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
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
