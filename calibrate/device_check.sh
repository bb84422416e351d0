#!/usr/bin/env bash
# calibrate/device_check.sh: the GPU check for the day a GPU is lent (issues
# 8 and 18), prepared for one H200 (16 cores, CUDA, PyTorch and the NVIDIA
# driver there; no COIN-OR libraries, no network) and dry-run on the CPU.
#
# Here, where Go is (the binary keeps cgo for NVML but leaves the COIN-OR
# LP backend out: build tag nocoin selects the pure-Go one; the script
# checks with ldd that it needs nothing but libc):
#
#   bash calibrate/device_check.sh --build        # → bin/fairbench-gpu
#   bash calibrate/device_check.sh --dry-run      # the whole check, shrunk, on the CPU
#
# Then on the device machine, from the repository root:
#
#   run(carry: ["bin"], command: "bash calibrate/device_check.sh", timeout_s: 570)
#
# Steps, each bounded so that the whole check fits in 9 minutes:
#   1. the binary: fairbench version, ldd (no COIN-OR, nothing missing);
#   2. calibrate devices (and the telemetry's own CPU cost over 5 s);
#   3. a Python whose PyTorch sees the GPU;
#   4. calibrate run of calibrate/profiles/h200-smoke.yaml: ResNet-18,
#      ResNet-50 and the Transformer LM at two or three batch sizes, with
#      throughput, NVML telemetry and peak memory (at most 240 s);
#   5. calibrate colocate of calibrate/profiles/h200-colocate.yaml: three
#      pairs, time-sliced and under MPS (at most 240 s);
#   6. calibrate merge of both records into h200.json with a scenario, and a
#      simulation of that scenario under the policies that use the pairs.
# The records are left in $OUT (the device tool's folder that comes back;
# default out/device-check), as merge takes them:
#   fairbench calibrate merge base.json $OUT/h200-smoke.calibration.json $OUT/h200-colocate.calibration.json
# with everything else in $OUT/device-check.tgz and a summary in
# $OUT/summary.txt (the device tool brings back at most 8 files).
#
# --dry-run runs the same steps with tiny CPU profiles (the figures filed
# under H200 are CPU figures, never GPU ones): calibrate devices is expected
# to exit 2 (no driver), and the PyTorch of /usr/bin/python3 need not see a
# GPU.
set -uo pipefail
cd "$(dirname "$0")/.."

MODE=gpu
case "${1:-}" in
  "") ;;
  --dry-run) MODE=dry ;;
  --build) MODE=build ;;
  *) echo "usage: $0 [--build | --dry-run]" >&2; exit 2 ;;
esac
FB=${FB:-bin/fairbench-gpu}
OUT=${OUT:-out/device-check}
RUN_SECONDS=${RUN_SECONDS:-240}
COLOCATE_SECONDS=${COLOCATE_SECONDS:-240}
log() { echo "== $(date -u +%H:%M:%S) $*"; }

# check_binary: the binary runs, needs no COIN-OR library and lacks nothing.
check_binary() {
  "$FB" version || { echo "cannot run $FB: build it with $0 --build and carry bin/"; return 1; }
  ldd "$FB" | tee "${1:-/dev/null}"
  if ldd "$FB" | grep -Eiq 'clp|cbc|coin|not found'; then
    echo "FAIL: $FB needs a COIN-OR library or a missing one (see ldd above)"
    return 1
  fi
  echo "ldd: $FB needs no COIN-OR library"
}

if [ "$MODE" = build ]; then
  mkdir -p "$(dirname "$FB")"
  CGO_ENABLED=1 go build -tags nocoin -o "$FB" ./cmd/fairbench || exit 1
  check_binary || exit 1
  echo "built $FB; carry bin/ to the device machine"
  exit 0
fi

START=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fairbench-device-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT" "$WORK/records" "$WORK/merged"
STATUS=0
note() { echo "$*"; NOTES="${NOTES:-}$*"$'\n'; }

(

log "mode $MODE, $(uname -srm), $(nproc) cores"
log "1. the binary"
check_binary "$WORK/ldd.txt" || exit 1

log "2. calibrate devices"
if [ "$MODE" = gpu ]; then
  nvidia-smi >"$WORK/nvidia-smi.txt" 2>&1 && head -15 "$WORK/nvidia-smi.txt"
  "$FB" calibrate devices | tee "$WORK/devices.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then echo "calibrate devices exited $rc"; exit "$rc"; fi
  "$FB" calibrate devices --json --sample-seconds 5 >"$WORK/devices.json"
  grep -A8 '"sampling"' "$WORK/devices.json"
else
  "$FB" calibrate devices >"$WORK/devices.txt" 2>&1
  rc=$?
  cat "$WORK/devices.txt"
  if [ "$rc" -eq 2 ]; then note "dry run: calibrate devices exited 2 (no NVIDIA driver here), as expected"
  else note "dry run: calibrate devices exited $rc, expected 2"; STATUS=1; fi
fi

log "3. Python with PyTorch"
PY=""
if [ "$MODE" = gpu ]; then
  for c in ${PYTHON:-} python3 /usr/bin/python3 /opt/torch/.venv/bin/python3 /opt/conda/bin/python python; do
    if command -v "$c" >/dev/null 2>&1 &&
       "$c" -c 'import torch, torchvision, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
      PY=$(command -v "$c"); break
    fi
  done
else
  PY=${PYTHON:-/usr/bin/python3}
  "$PY" -c 'import torch, torchvision' || PY=""
fi
if [ -z "$PY" ]; then
  echo "no Python here imports torch and torchvision (with CUDA on a GPU); tried ${PYTHON:-} python3 /usr/bin/python3 /opt/torch/.venv/bin/python3"
  exit 3
fi
"$PY" -c 'import sys, torch, torchvision; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "torchvision", torchvision.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' | tee "$WORK/python.txt"

RUN_PROFILE=calibrate/profiles/h200-smoke.yaml
COLOCATE_PROFILE=calibrate/profiles/h200-colocate.yaml
if [ "$MODE" = dry ]; then
  # The same steps, shrunk: tiny models on one CPU thread, filed under H200.
  RUN_PROFILE=$WORK/h200-smoke.yaml
  COLOCATE_PROFILE=$WORK/h200-colocate.yaml
  common='steps: 200
warmup_steps: 1
window: 3
measure_steps: 4
cv_threshold: 0.3
max_seconds: 1
start_timeout_seconds: 120
timeout_seconds: 120'
  cat >"$RUN_PROFILE" <<EOF
name: h200-smoke
devices: [{device: cpu, gpu_type: H200, threads: 1}]
models:
  - {model: resnet18, job_type: ResNet-18 dry, batch_sizes: [2, 4], args: {image_size: 16}}
  - {model: resnet50, job_type: ResNet-50 dry, batch_sizes: [2, 4, 6], args: {image_size: 32, num_classes: 10}}
  - {model: transformer, job_type: Transformer-LM dry, batch_sizes: [2, 4], args: {vocab: 500, seq_len: 16, d_model: 32, layers: 1, heads: 2}}
$common
EOF
  r18='{model: resnet18, job_type: ResNet-18 dry, batch_size: 4, args: {image_size: 16}}'
  r50='{model: resnet50, job_type: ResNet-50 dry, batch_size: 2, args: {image_size: 32, num_classes: 10}}'
  tlm='{model: transformer, job_type: Transformer-LM dry, batch_size: 4, args: {vocab: 500, seq_len: 16, d_model: 32, layers: 1, heads: 2}}'
  cat >"$COLOCATE_PROFILE" <<EOF
name: h200-colocate
devices: [{device: cpu, gpu_type: H200, threads: 1}]
colocate:
  pairs:
    - {a: $r18, b: $r50}
    - {a: $r50, b: $tlm}
    - {a: $r18, b: $tlm}
$common
EOF
fi

log "4. calibrate run ($RUN_PROFILE, at most ${RUN_SECONDS}s)"
t0=$(date +%s)
timeout -s TERM -k 15 "$RUN_SECONDS" "$FB" calibrate run --profile "$RUN_PROFILE" --python "$PY" --out "$WORK/records"
rc=$?
note "calibrate run exited $rc after $(( $(date +%s) - t0 )) s"
[ "$rc" -eq 0 ] || STATUS=1

log "5. calibrate colocate ($COLOCATE_PROFILE, at most ${COLOCATE_SECONDS}s)"
t0=$(date +%s)
timeout -s TERM -k 15 "$COLOCATE_SECONDS" "$FB" calibrate colocate --profile "$COLOCATE_PROFILE" --python "$PY" --out "$WORK/records"
rc=$?
note "calibrate colocate exited $rc after $(( $(date +%s) - t0 )) s (1: some pair failed, e.g. MPS unavailable: see its reason above)"

log "6. merge and simulate"
records=("$WORK"/records/*.calibration.json)
if "$FB" calibrate merge "$WORK/merged/h200.json" "${records[@]}" --scenario "$WORK/merged/h200-scenario.yaml"; then
  "$FB" simulate "$WORK/merged/h200-scenario.yaml" --policy fifo,sjf-bsbf,gavel-las-ss --out "$WORK/sim" || { note "simulate failed"; STATUS=1; }
else
  note "merge failed"; STATUS=1
fi

log "results"
cp "${records[@]}" "$OUT/" 2>/dev/null
note "total $(( $(date +%s) - START )) s; records in $OUT: $(cd "$OUT" && ls ./*.calibration.json 2>/dev/null | tr '\n' ' ')"
echo "== summary"
printf '%s' "${NOTES:-}"
exit "$STATUS"
) 2>&1 | tee "$WORK/summary.txt"
STATUS=${PIPESTATUS[0]}
cp "$WORK/summary.txt" "$OUT/summary.txt"
tar czf "$OUT/device-check.tgz" -C "$WORK" . 2>/dev/null
exit "$STATUS"
