#!/usr/bin/env python3
"""torch_train.py: a real PyTorch training loop on synthetic data, for fairbench calibration.

It trains one model (forward, backward, optimizer step) on one device for N
steps and prints one JSON object per line on stdout. fairbench's calibrate
runner (calibrate/workload.go) starts it, reads the lines, decides when the
step time is steady and stops it; the script itself measures nothing but
the time of each step.

Models (--model):
  resnet18     torchvision resnet18. At --image-size <= 64 (default 32) its stem is the
               CIFAR one of kuangliu/pytorch-cifar's ResNet18, the model Gavel's and
               Sia's cifar10 jobs train: a 3x3 stride-1 first convolution and no max
               pooling, 10 classes. At larger images it is torchvision's ImageNet model.
  resnet50     torchvision resnet50, 224x224 images, 1000 classes (Gavel's imagenet job).
  vgg16        torchvision vgg16, 224x224 images, 1000 classes.
  transformer  a small decoder-only Transformer language model (token embedding, learned
               positions, --layers pre-built nn.TransformerEncoderLayer blocks with a
               causal mask, a linear head over the vocabulary). Not Gavel's Multi30k
               translation Transformer.
  lstm         the LSTM language model of PyTorch's examples/word_language_model, which
               Gavel's "LM" jobs train: 2 layers, 200 embedding and hidden units, dropout
               0.2, 35-token sequences (bptt), WikiText-2's 33,278-word vocabulary, plain
               SGD with lr 20 and gradient clipping at 0.25. The batch size is the number
               of sequences.

Data parallelism (--gang N): N worker processes on one host, one per device,
joined by torch.distributed (gloo on the CPU, nccl on CUDA) and wrapped in
DistributedDataParallel. Each worker trains --batch-size samples per step,
so a step processes batch_size x gang samples. On CUDA, worker r uses
cuda:(K + r) for --device cuda:K (fairbench pins the gang with
CUDA_VISIBLE_DEVICES and passes cuda:0).

Output protocol, one JSON object per line on stdout, only from worker 0
(except "oom", which any worker prints):
  {"event": "start", "model", "batch_size", "gang", "device", "amp", "seed", "params",
   "torch", "python", "devices": [names]}
  {"event": "step", "step": i (1-based), "time": seconds of this step, "samples": samples
   in this step (all workers), "loss": float or null, "mem_bytes": peak bytes allocated by
   torch on the device and "reserved_bytes": peak bytes its caching allocator held (CUDA) |
   "rss_bytes": peak resident set of worker 0, the OS's ru_maxrss (CPU)}
  {"event": "done", "steps": N}
  {"event": "oom", "step": i, "rank": r, "message": "..."}   then exit status 3
  {"event": "flops", ...}   with --count-flops instead of training (see count_flops)
Exit status: 0 done, 3 out of memory, 2 bad arguments, anything else a crash.

Determinism: every random number comes from torch.manual_seed(seed + rank);
the synthetic batch is drawn once and reused every step.
"""

import argparse
import json
import math
import os
import platform
import resource
import sys
import time

import torch
import torch.nn as nn

EXIT_OOM = 3

MODELS = ("resnet18", "resnet50", "vgg16", "transformer", "lstm")


def emit(obj):
    sys.stdout.write(json.dumps(obj, allow_nan=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, choices=MODELS)
    p.add_argument("--batch-size", type=int, required=True, help="samples per worker per step")
    p.add_argument("--steps", type=int, default=100, help="training steps to run")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:K")
    p.add_argument("--gang", type=int, default=1, help="data-parallel workers on this host")
    p.add_argument("--amp", action="store_true",
                   help="mixed precision: float16 autocast and a gradient scaler on CUDA, bfloat16 autocast on the CPU")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0, help="CPU threads per worker (0: torch's default)")
    p.add_argument("--image-size", type=int, default=0, help="image side (default 32 for resnet18, 224 otherwise)")
    p.add_argument("--num-classes", type=int, default=0, help="classes (default 10 at images <= 64, else 1000)")
    p.add_argument("--seq-len", type=int, default=0, help="tokens per sequence (default 35 lstm, 128 transformer)")
    p.add_argument("--vocab", type=int, default=33278, help="vocabulary size (default: WikiText-2's 33,278)")
    p.add_argument("--d-model", type=int, default=256, help="transformer width")
    p.add_argument("--layers", type=int, default=4, help="transformer blocks")
    p.add_argument("--heads", type=int, default=4, help="transformer attention heads")
    p.add_argument("--count-flops", action="store_true",
                   help="print forward FLOPs and activation bytes per sample as one JSON line and exit")
    a = p.parse_args(argv)
    if a.batch_size < 1:
        p.error("--batch-size must be >= 1")
    if a.steps < 1:
        p.error("--steps must be >= 1")
    if a.gang < 1:
        p.error("--gang must be >= 1")
    if not (a.device == "cpu" or a.device == "cuda" or a.device.startswith("cuda:")):
        p.error("--device must be cpu, cuda or cuda:K")
    if a.image_size == 0:
        a.image_size = 32 if a.model == "resnet18" else 224
    if a.num_classes == 0:
        a.num_classes = 10 if a.image_size <= 64 else 1000
    if a.seq_len == 0:
        a.seq_len = 35 if a.model == "lstm" else 128
    return a


# ---------------------------------------------------------------- models

def build_model(a):
    if a.model in ("resnet18", "resnet50", "vgg16"):
        import torchvision.models as tvm
        if a.model == "resnet18":
            m = tvm.resnet18(num_classes=a.num_classes)
            if a.image_size <= 64:
                # kuangliu/pytorch-cifar ResNet18 (Gavel's and Sia's cifar10 model).
                m.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
                m.maxpool = nn.Identity()
            return m
        if a.model == "resnet50":
            return tvm.resnet50(num_classes=a.num_classes)
        return tvm.vgg16(num_classes=a.num_classes)
    if a.model == "transformer":
        return TransformerLM(a.vocab, a.d_model, a.heads, a.layers, 4 * a.d_model, a.seq_len)
    return LSTMLM(a.vocab, 200, 200, 2, 0.2)


class TransformerLM(nn.Module):
    def __init__(self, vocab, d, heads, layers, ff, seq):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, seq, d))
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.1, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, tokens):
        x = self.emb(tokens) + self.pos[:, : tokens.shape[1]]
        x = self.blocks(x, mask=self.mask)
        return self.head(x)


class LSTMLM(nn.Module):
    """examples/word_language_model RNNModel('LSTM', ntoken, 200, 200, 2, dropout=0.2)."""

    def __init__(self, vocab, emsize, nhid, nlayers, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(vocab, emsize)
        self.rnn = nn.LSTM(emsize, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, vocab)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, tokens, hidden):
        x = self.drop(self.encoder(tokens))
        out, hidden = self.rnn(x, hidden)
        return self.decoder(self.drop(out)), hidden

    def init_hidden(self, batch, device):
        z = torch.zeros(self.nlayers, batch, self.nhid, device=device)
        return (z, z.clone())


def synthetic_batch(a, batch, device, gen):
    if a.model in ("resnet18", "resnet50", "vgg16"):
        x = torch.randn(batch, 3, a.image_size, a.image_size, generator=gen)
        y = torch.randint(0, a.num_classes, (batch,), generator=gen)
    elif a.model == "transformer":
        x = torch.randint(0, a.vocab, (batch, a.seq_len), generator=gen)
        y = torch.randint(0, a.vocab, (batch, a.seq_len), generator=gen)
    else:  # lstm: (seq, batch), as word_language_model batchifies
        x = torch.randint(0, a.vocab, (a.seq_len, batch), generator=gen)
        y = torch.randint(0, a.vocab, (a.seq_len, batch), generator=gen)
    return x.to(device), y.to(device)


def make_optimizer(a, params):
    if a.model == "lstm":
        return torch.optim.SGD(params, lr=20.0)
    if a.model == "transformer":
        return torch.optim.Adam(params, lr=1e-4)
    if a.model == "resnet18":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=5e-4)
    return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-4)


# ---------------------------------------------------------------- FLOP counter

def count_flops(a):
    """Forward FLOPs and activation bytes per sample, counted with forward hooks.

    The counter (documented in calibrate/data/README.md) counts 2 FLOPs per
    multiply-accumulate of the matrix products that dominate training:
      Conv2d   2 * Cout * Hout * Wout * (Cin / groups) * kh * kw
      Linear   2 * in * out per output row
      LSTM     2 * 4 * hidden * (input + hidden) per layer and time step
      MultiheadAttention  2*3*L*d*d (in-projection) + 2*2*L*L*d (scores and
               weighted sum) + 2*L*d*d (out-projection), for L tokens of width d
    and nothing for element-wise layers (norms, activations, pooling,
    embeddings), as torchvision's documented GFLOPS do. Activation bytes are
    the bytes of every leaf module's output (4 per fp32 element). A training
    step is about 3x the forward FLOPs (backward is about twice the forward).
    """
    torch.manual_seed(a.seed)
    model = build_model(a)
    model.train()
    batch = 2
    gen = torch.Generator().manual_seed(a.seed)
    x, _ = synthetic_batch(a, batch, "cpu", gen)
    flops = [0.0]
    act = [0.0]

    def first_tensor(out):
        while isinstance(out, (tuple, list)):
            out = out[0]
        return out

    def hook(mod, inp, out):
        o = first_tensor(out)
        if isinstance(mod, nn.Conv2d):
            kh, kw = mod.kernel_size
            flops[0] += 2.0 * o.numel() * (mod.in_channels / mod.groups) * kh * kw
        elif isinstance(mod, nn.Linear):
            flops[0] += 2.0 * (o.numel() / mod.out_features) * mod.in_features * mod.out_features
        elif isinstance(mod, nn.LSTM):
            xin = first_tensor(inp)
            steps = xin.shape[1] if mod.batch_first else xin.shape[0]
            rows = xin.shape[0] if mod.batch_first else xin.shape[1]
            for layer in range(mod.num_layers):
                width = mod.input_size if layer == 0 else mod.hidden_size
                flops[0] += 2.0 * 4 * mod.hidden_size * (width + mod.hidden_size) * steps * rows
        elif isinstance(mod, nn.MultiheadAttention):
            q = first_tensor(inp)
            if mod.batch_first:
                rows, length, d = q.shape
            else:
                length, rows, d = q.shape
            flops[0] += rows * (2.0 * 3 * length * d * d + 2.0 * 2 * length * length * d + 2.0 * length * d * d)
        if len(list(mod.children())) == 0 or isinstance(mod, (nn.MultiheadAttention, nn.LSTM)):
            if torch.is_tensor(o):
                act[0] += o.numel() * o.element_size()

    for mod in model.modules():
        mod.register_forward_hook(hook)
    if a.model == "lstm":
        model(x, model.init_hidden(batch, "cpu"))
    else:
        model(x)
    params = sum(p.numel() for p in model.parameters())
    emit({"event": "flops", "model": a.model, "image_size": a.image_size, "num_classes": a.num_classes,
          "seq_len": a.seq_len, "vocab": a.vocab,
          "forward_flops_per_sample": flops[0] / batch, "activation_bytes_per_sample": act[0] / batch,
          "params": params, "param_bytes": params * 4, "torch": torch.__version__})


# ---------------------------------------------------------------- training

def is_oom(exc):
    msg = str(exc).lower()
    return "out of memory" in msg or "can't allocate memory" in msg or "cannot allocate memory" in msg


def worker(rank, a, port):
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    cuda = a.device.startswith("cuda")
    if cuda:
        base = int(a.device.split(":")[1]) if ":" in a.device else 0
        device = torch.device("cuda", base + rank)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    if a.gang > 1:
        import torch.distributed as dist
        dist.init_process_group("nccl" if cuda else "gloo", init_method="tcp://127.0.0.1:%d" % port,
                                rank=rank, world_size=a.gang)
    torch.manual_seed(a.seed + rank)
    step = 0
    try:
        model = build_model(a).to(device)
        if a.gang > 1:
            from torch.nn.parallel import DistributedDataParallel as DDP
            model = DDP(model, device_ids=[device.index] if cuda else None)
        opt = make_optimizer(a, model.parameters())
        gen = torch.Generator().manual_seed(a.seed + rank)
        x, y = synthetic_batch(a, a.batch_size, device, gen)
        loss_fn = nn.CrossEntropyLoss()
        try:  # torch.amp.GradScaler since PyTorch 2.3; torch.cuda.amp's is deprecated there
            scaler = torch.amp.GradScaler("cuda", enabled=a.amp and cuda)
        except (AttributeError, TypeError):
            scaler = torch.cuda.amp.GradScaler(enabled=a.amp and cuda)
        if a.amp:
            autocast = (lambda: torch.autocast("cuda", dtype=torch.float16)) if cuda else \
                (lambda: torch.autocast("cpu", dtype=torch.bfloat16))
        else:
            import contextlib
            autocast = contextlib.nullcontext
        core = model.module if a.gang > 1 else model
        hidden = core.init_hidden(a.batch_size, device) if a.model == "lstm" else None
        if rank == 0:
            names = [torch.cuda.get_device_name(base + r) for r in range(a.gang)] if cuda else [platform.processor() or "cpu"]
            emit({"event": "start", "model": a.model, "batch_size": a.batch_size, "gang": a.gang,
                  "device": a.device, "amp": a.amp, "seed": a.seed,
                  "params": sum(p.numel() for p in model.parameters()),
                  "torch": torch.__version__, "python": platform.python_version(), "devices": names})
        for step in range(1, a.steps + 1):
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            with autocast():
                if a.model == "lstm":
                    hidden = tuple(h.detach() for h in hidden)
                    out, hidden = model(x, hidden)
                    loss = loss_fn(out.reshape(-1, a.vocab).float(), y.reshape(-1))
                elif a.model == "transformer":
                    out = model(x)
                    loss = loss_fn(out.reshape(-1, a.vocab).float(), y.reshape(-1))
                else:
                    loss = loss_fn(model(x).float(), y)
            scaler.scale(loss).backward()
            if a.model == "lstm":
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            scaler.step(opt)
            scaler.update()
            lv = loss.item()  # waits for the device
            if cuda:
                torch.cuda.synchronize(device)
            dt = time.perf_counter() - t0
            if rank == 0:
                rec = {"event": "step", "step": step, "time": dt, "samples": a.batch_size * a.gang,
                       "loss": lv if math.isfinite(lv) else None}
                if cuda:
                    rec["mem_bytes"] = torch.cuda.max_memory_allocated(device)
                    rec["reserved_bytes"] = torch.cuda.max_memory_reserved(device)
                else:
                    rec["rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
                emit(rec)
        if rank == 0:
            emit({"event": "done", "steps": a.steps})
    except Exception as exc:  # noqa: BLE001 - classify, then re-raise
        if is_oom(exc):
            emit({"event": "oom", "step": step, "rank": rank, "message": str(exc).splitlines()[0][:500]})
            sys.stderr.write("torch_train.py: out of memory at step %d on worker %d: %s\n" % (step, rank, exc))
            sys.stderr.flush()
            os._exit(EXIT_OOM)
        raise


def _spawned(rank, a, port):
    try:
        worker(rank, a, port)
    except SystemExit:
        raise
    except BaseException:
        import traceback
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


def free_port():
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv):
    a = parse_args(argv)
    if a.count_flops:
        count_flops(a)
        return 0
    if a.gang == 1:
        worker(0, a, 0)
        return 0
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn" if a.device.startswith("cuda") else "fork")
    port = free_port()
    procs = [ctx.Process(target=_spawned, args=(r, a, port), daemon=False) for r in range(a.gang)]
    for p in procs:
        p.start()
    status = 0
    while True:
        alive = [p for p in procs if p.exitcode is None]
        failed = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
        if failed:
            status = EXIT_OOM if EXIT_OOM in failed else (failed[0] if failed[0] > 0 else 1)
            for p in alive:
                p.terminate()
            break
        if not alive:
            break
        time.sleep(0.02)
    for p in procs:
        p.join(5)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
