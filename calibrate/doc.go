// Package calibrate measures real training throughput on the GPUs of this
// machine and turns it into figures of the throughput matrix
// (`fairbench calibrate ...`).
//
// # Pieces
//
//   - Discovery and telemetry go through the Probe interface;
//     calibrate/nvmlprobe implements it over NVML (go-nvml, cgo, the driver's
//     libnvidia-ml.so.1 loaded at run time). Without a driver, or in a
//     CGO_ENABLED=0 build, opening it fails with an error wrapping ErrNoNVML
//     (the CLI exits 2); runs on the "cpu" device need no probe at all.
//   - The workload is workloads/torch_train.py, built into the binary
//     (WorkloadScript): a real PyTorch training loop on synthetic data
//     (ResNet-18, ResNet-50, VGG-16, a small Transformer LM, Gavel's LSTM LM)
//     that prints one JSON line per step. Its protocol is in its doc string.
//   - Runner runs a profile (Spec, read by ReadSpec from YAML or JSON): for
//     each device × model × batch size × gang size it starts the workload in
//     its own process group, pinned with CUDA_VISIBLE_DEVICES (GPU UUIDs,
//     CUDA_DEVICE_ORDER=PCI_BUS_ID), samples NVML at sample_hz in a
//     goroutine (Sampler), drops the warm-up, waits for steady state (Steady:
//     coefficient of variation of the last `window` step times under
//     cv_threshold, bounded by max_seconds) and measures `measure_steps`
//     fresh steps; then it stops the process group. A workload that prints
//     anything but protocol lines, exits early, hangs (no step within
//     start_timeout_seconds or stall_seconds) or outlives timeout_seconds is
//     recorded as failed with the reason and its stderr tail; one that runs
//     out of memory (an "oom" line or exit status 3) as "does not fit".
//     The run goes on with the next entry either way.
//
// # Results
//
// A run writes two files to the output folder, both rewritten atomically
// after every entry (Ctrl-C leaves both valid, holding what finished):
//
//   - <name>.calibration.json, the Record: provenance (fairbench version,
//     host, date, NVML's driver and CUDA versions and every GPU's index,
//     UUID and name, or the CPU model), the profile, and per entry its
//     status, step-time statistics, steps/s and samples/s with 95%
//     confidence intervals (Student's t over the measured steps), peak
//     memory (PyTorch's and NVML's), mean power, energy and energy per
//     sample (NVML's energy counter where it moves, else mean power × time),
//     utilisation, clocks, temperature and the throttle reasons seen, and
//     the workload's command, PyTorch and Python versions.
//   - <name>.throughputs.json, the matrix in the format of Gavel's
//     simulation_throughputs.json, which scenarios read with
//     `throughputs: FILE` (models.ReadGavelThroughputs): an ok entry gives
//     its matrix_steps_per_second, an out-of-memory entry a 0 ("does not
//     fit": the matrix reads a stored 0 as "cannot run there"), failed
//     entries nothing. Figures are consolidated (one host).
//
// The matrix counts steps the way Gavel's file does: every worker's step,
// so a gang of k workers that completes s iterations per second has
// k·s steps/s (= samples/s ÷ per-worker batch size). The record keeps both.
//
// The record is the source of truth and carries what Gavel's format has no
// room for. MergeFiles adds records (or Gavel-format files) to a matrix
// file; LoadMatrix reads either.
//
// # Job types and GPU types
//
// An entry's job type is "<family> (batch size B)" with the per-worker
// batch size. The default family is Gavel's where the workload is Gavel's
// model — "ResNet-18" (kuangliu's CIFAR ResNet-18 at 32×32), "ResNet-50",
// "LM" (the word_language_model LSTM) — and "VGG-16" or "Transformer-LM"
// otherwise, with " AMP" under mixed precision; a profile whose args change
// the model's shape must name its family (job_type). The GPU type is the
// catalogue's (CatalogueGPUType maps NVML names, with the memory telling
// A100 40 GB from 80 GB); the Gavel format accepts catalogue types only.
//
// # Extrapolation
//
// Extrapolator estimates job types on a GPU type nobody measured from its
// datasheet (data/gpus.json) and the model's counted FLOPs and bytes
// (data/workloads.json), with per-job efficiency factors fitted on the
// measured types; LeaveOneTypeOut reports how well that works on the
// types that were measured. See extrapolate.go and data/README.md.
//
// Nothing outside calibrate (and the CLI) imports this package: the
// simulator and everything that runs without a GPU do not need it.
package calibrate
