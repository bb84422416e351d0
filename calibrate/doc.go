// Package calibrate measures real training throughput, memory and
// co-location interference on the GPUs of this machine and turns them into
// figures of the throughput matrix (`fairbench calibrate ...`; the path from
// a new GPU to a report is docs/calibration.md).
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
//   - A profile (Spec, read by ReadSpec from YAML or JSON) lists devices,
//     models at batch and gang sizes, co-location pairs (ColocateSpec) and
//     GPU types the catalogue lacks (GPUDecl).
//   - Runner runs a profile: for each device × model × batch size × gang
//     size it starts the workload in its own process group, pinned with
//     CUDA_VISIBLE_DEVICES (GPU UUIDs, CUDA_DEVICE_ORDER=PCI_BUS_ID), samples
//     NVML at sample_hz in a goroutine (Sampler), drops the warm-up, waits for
//     steady state (Steady: coefficient of variation of the last `window`
//     step times under cv_threshold, bounded by max_seconds) and measures
//     `measure_steps` fresh steps; then it stops the process group. A
//     workload that prints anything but protocol lines, exits early, hangs
//     (no step within start_timeout_seconds or stall_seconds) or outlives
//     timeout_seconds is recorded as failed with the reason and its stderr
//     tail; one that runs out of memory (an "oom" line or exit status 3) as
//     "does not fit". The run goes on with the next entry either way.
//   - Then the pairs (colocate.go): both workloads of a pair start at once on
//     the same GPUs (time-sliced, or as clients of an MPS daemon), each with
//     its own steady-state search; the one measured first keeps running until
//     its partner is measured. Pairs whose alone memory exceeds the device,
//     or that run out of memory together, "cannot share".
//
// # Results
//
// A run writes two files to the output folder, both rewritten atomically
// after every entry (Ctrl-C leaves both valid, holding what finished):
//
//   - <name>.calibration.json, the Record: provenance (fairbench version,
//     host, date, NVML's driver and CUDA versions and every GPU's index,
//     UUID and name, or the CPU model), the profile and its declared GPU
//     types, per entry its status, step-time statistics, steps/s and
//     samples/s with 95% confidence intervals (Student's t over the measured
//     steps), memory (MemoryBytes: NVML's peak use of worker 0's GPU, or on
//     the CPU the process's peak RSS, a CPU figure; and PyTorch's peaks), mean
//     power, energy and energy per sample (NVML's energy counter where it
//     moves, else mean power × time), utilisation, clocks, temperature, the
//     throttle reasons seen and the workload's command and versions; and per
//     pair the alone and paired steps/s with their intervals and the
//     slowdown ξ = alone/paired. DecodeRecord refuses hostile records,
//     naming the line and field (limits.go).
//   - <name>.throughputs.json, the matrix in the format of Gavel's
//     simulation_throughputs.json, which scenarios read with
//     `throughputs: FILE` (models.ReadGavelThroughputs): an ok entry gives
//     its matrix_steps_per_second, an out-of-memory entry a 0 ("does not
//     fit": the matrix reads a stored 0 as "cannot run there"), failed
//     entries nothing; pairs in Gavel's pair format, scaled so that each
//     keeps its measured slowdown (Record.MatrixFor). Figures are
//     consolidated (one host).
//
// The matrix counts steps the way Gavel's file does: every worker's step,
// so a gang of k workers that completes s iterations per second has
// k·s steps/s (= samples/s ÷ per-worker batch size). The record keeps both.
//
// Merge adds records (or Gavel-format files) to a matrix file and returns
// the merged matrix, a merged record (every measurement of every source,
// with provenance), the gpu_types block of the types the catalogue lacks
// and, with ScenarioFor, a scenario that uses them; WriteAll writes them all
// or none. FitMemory fits the memory model fixed + per-sample × batch per
// workload, GPU type and gang and checks it on a held-back batch size;
// JobMemory turns a record into job types' memory_gb and fixed_memory_gb,
// which a scenario's `calibration:` key applies (LoadForScenario).
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
// A100 40 GB from 80 GB) or one the profile declares under gpu_types; a
// record carries its declarations, and a Gavel-format file naming a type the
// catalogue lacks needs one (ReadGPUTypes reads the gpu_types list of any
// file: a datasheet file, a profile or a scenario).
//
// # Extrapolation
//
// Extrapolator estimates job types on a GPU type nobody measured from its
// datasheet (data/gpus.json, or a declaration's peaks) and the model's
// counted FLOPs and bytes (data/workloads.json), with per-job efficiency
// factors fitted on the measured types; LeaveOneTypeOut reports how well
// that works on the types that were measured. See extrapolate.go and
// data/README.md.
//
// Outside the CLI, only scenarios imports this package (for the
// `calibration:` key); the simulator and the solvers do not need it.
package calibrate
