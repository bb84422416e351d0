#!/bin/sh
# A stand-in for torch_train.py in tests: it speaks the same protocol (one
# JSON object per line on stdout) without PyTorch. FAKE_MODE picks the
# behaviour; the arguments the runner passes are ignored except
# --batch-size, which FAKE_MODE=interrupt uses to hang on batch size 2.
mode=${FAKE_MODE:-ok}
# FAKE_PIDFILE: where to write this shell's PID (its process group's ID).
[ -n "${FAKE_PIDFILE:-}" ] && echo $$ >"$FAKE_PIDFILE"
batch=1
while [ $# -gt 0 ]; do
  case $1 in
    --batch-size) batch=$2; shift ;;
  esac
  shift
done
step() { printf '{"event":"step","step":%d,"time":%s,"samples":%d,"loss":1.5,"rss_bytes":1000}\n' "$1" "$2" "$batch"; }
echo '{"event":"start","model":"fake","torch":"0-fake","python":"sh","params":42,"devices":["fake"]}'
case $mode in
  ok)
    i=1; while [ $i -le 60 ]; do step $i 0.01; i=$((i+1)); done
    echo '{"event":"done","steps":60}' ;;
  slow)
    i=1; while [ $i -le 60 ]; do sleep 0.02; step $i 0.02; i=$((i+1)); done
    echo '{"event":"done","steps":60}' ;;
  interrupt)
    if [ "$batch" = 2 ]; then step 1 0.01; sleep 30; fi
    i=1; while [ $i -le 60 ]; do step $i 0.01; i=$((i+1)); done
    echo '{"event":"done","steps":60}' ;;
  garbage)
    step 1 0.01; step 2 0.01
    echo 'Epoch 1: loss 2.3 (a stray print)'
    sleep 30 ;;
  nan)
    step 1 0.01
    echo '{"event":"step","step":2,"time":NaN,"samples":1}'
    sleep 30 ;;
  crash)
    step 1 0.01; step 2 0.01
    echo 'Traceback (most recent call last):' >&2
    echo 'RuntimeError: CUDA error: an illegal memory access was encountered' >&2
    exit 1 ;;
  hang)
    step 1 0.01
    echo 'about to hang' >&2
    sleep 30 ;;
  oom)
    step 1 0.01
    echo '{"event":"oom","step":2,"rank":0,"message":"CUDA out of memory. Tried to allocate 2.00 GiB"}'
    echo 'torch.cuda.OutOfMemoryError: CUDA out of memory' >&2
    exit 3 ;;
  exit3)
    echo 'killed by the allocator' >&2
    exit 3 ;;
  short)
    step 1 0.01; step 2 0.01
    echo '{"event":"done","steps":2}' ;;
  unsteady)
    # Alternating step times never pass a 2% test; the time bound ends it.
    i=1; while [ $i -le 200 ]; do
      if [ $((i % 2)) = 0 ]; then step $i 0.01; else step $i 0.03; fi; i=$((i+1)); done
    echo '{"event":"done","steps":200}' ;;
esac
