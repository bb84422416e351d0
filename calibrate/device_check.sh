#!/usr/bin/env bash
# calibrate/device_check.sh: the GPU check of issue 8, prepared for a machine
# with an NVIDIA GPU (the device tool lends one H200). Build here, carry the
# binary, run this from the repository root there:
#
#   make build                              # or: go build -o bin/fairbench ./cmd/fairbench
#   run(carry: [bin], command: "bash calibrate/device_check.sh", timeout_s: 540)
#
# It runs `fairbench calibrate devices` (and measures the telemetry's CPU
# cost for 5 s), then `fairbench calibrate run` of ResNet-18, ResNet-50 and
# the Transformer LM at two batch sizes (calibrate/profiles/h200-smoke.yaml),
# and prints the results. Everything lands in $OUT (the device tool's
# folder that comes back), or out/device-check.
set -uo pipefail
cd "$(dirname "$0")/.."
FB=${FB:-bin/fairbench}
OUT=${OUT:-out/device-check}
mkdir -p "$OUT"
log() { echo "== $*"; }

log "fairbench"
"$FB" version || { echo "no $FB: build it first (make build) and carry bin/"; exit 1; }
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1 && head -15 "$OUT/nvidia-smi.txt"

log "calibrate devices"
"$FB" calibrate devices | tee "$OUT/devices.txt"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then echo "calibrate devices exited $rc"; exit "$rc"; fi
"$FB" calibrate devices --json --sample-seconds 5 >"$OUT/devices.json"
grep -A8 '"sampling"' "$OUT/devices.json"

# A Python with CUDA PyTorch and torchvision: $PYTHON, else the first that works.
log "python with CUDA torch"
PY=""
for c in ${PYTHON:-} /usr/bin/python3 python3 /opt/conda/bin/python python; do
  if command -v "$c" >/dev/null 2>&1 &&
     "$c" -c 'import torch, torchvision, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    PY=$(command -v "$c"); break
  fi
done
if [ -z "$PY" ]; then
  echo "no Python here imports torch and torchvision with CUDA; tried: ${PYTHON:-} /usr/bin/python3 python3 /opt/conda/bin/python python"
  echo "device facts are in $OUT/devices.txt; the training run needs PyTorch on this machine"
  exit 3
fi
"$PY" -c 'import torch, torchvision; print("python", __import__("sys").version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "torchvision", torchvision.__version__, torch.cuda.get_device_name(0))' | tee "$OUT/python.txt"

log "calibrate run (calibrate/profiles/h200-smoke.yaml)"
start=$(date +%s)
"$FB" calibrate run --profile calibrate/profiles/h200-smoke.yaml --python "$PY" --out "$OUT"
rc=$?
echo "calibrate run exited $rc after $(( $(date +%s) - start )) s"
ls -l "$OUT"
exit "$rc"
