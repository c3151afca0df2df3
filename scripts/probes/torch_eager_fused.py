#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch eager `gelu(x + b) + r` on fused_elementwise's full shape: the framework yardstick.

A diagnostic, not a dependency of roofbench: run it in the same GPU call as the suite so the
two are timed on the same card in the same state (GPU.md keeps such side-by-side figures).
Eager mode launches three kernels (the broadcast add, the erf GELU, the residual add), as
fused_elementwise's baseline does, so the baseline should be no slower than this line.

Prints one line: the median of --samples CUDA-event timings (each of --reps back-to-back
launches, after a warm-up), and the rate in GB/s counting the 14 bytes per element the three
kernels move (x, t1 | t1, t2 | t2, r, y; 2 bytes each) and the 6 a fused kernel must move.

    python3 scripts/probes/torch_eager_fused.py [--rows 65536] [--cols 4096] [--samples 50] [--reps 10]
"""
import argparse
import statistics
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--reps", type=int, default=10, help="launches per timed sample")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import torch  # imported here so --help works without torch
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("torch_eager_fused: no CUDA device", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    # The suite's distributions: x in (-3, 3), bias and residual in (-1, 1), bf16.
    def uniform(shape, scale):
        return ((torch.rand(shape, generator=gen, device=dev) * 2 - 1) * scale).to(torch.bfloat16)

    x = uniform((args.rows, args.cols), 3.0)
    r = uniform((args.rows, args.cols), 1.0)
    b = uniform((args.cols,), 1.0)

    def step():
        return F.gelu(x + b, approximate="none") + r

    # Check the eager result against an fp32 evaluation (catches a wrong call, not a benchmark).
    with torch.no_grad():
        want = F.gelu(x.float() + b.float()) + r.float()
        got = step().float()
        rel = (torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want)).item()
    if not rel <= 5e-3:  # three bf16 roundings: ~2.8e-3 (bench/fused_elementwise.c)
        print(f"torch_eager_fused: eager result off by {rel:.3g} normwise", file=sys.stderr)
        return 1

    for _ in range(10):  # warm-up: allocator, clocks, first-launch costs
        step()
    torch.cuda.synchronize()
    times_ms = []
    for _ in range(args.samples):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.reps):
            step()
        stop.record()
        stop.synchronize()
        times_ms.append(start.elapsed_time(stop) / args.reps)
    med_ms = statistics.median(times_ms)
    n = args.rows * args.cols
    gbps = lambda bytes_per_elem: bytes_per_elem * n / (med_ms * 1e-3) / 1e9
    print(
        f"torch_eager_fused {torch.cuda.get_device_name()} torch {torch.__version__} "
        f"{args.rows}x{args.cols} bf16: median {med_ms:.4f} ms "
        f"(min {min(times_ms):.4f}, {args.samples} samples of {args.reps}), "
        f"{gbps(14):.1f} GB/s at 14 B/elem moved, {gbps(6):.1f} GB/s at 6 B/elem compulsory, "
        f"rel_err {rel:.2e}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
