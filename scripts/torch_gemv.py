#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's bf16 GEMV on decode_gemv's shapes: torch.matmul and F.linear, timed with CUDA events.

A diagnostic, not a dependency of roofbench: run it in the same GPU call as the suite, so the
pair's rates and PyTorch's are taken on the same card in the same state. For each token count m
(the pair's inputs m1, m4, m16) y = x W^T with W n x k (the pair's full size 28672 x 8192) and x
m x k, bf16, W ~ N(0, 1/k) and x ~ N(0, 1) as the pair makes them: a check of the output against
an fp64 evaluation (a wrong call, not a benchmark), then --samples samples of back-to-back calls
between two CUDA events (each sample >= ~1 ms: the pair times its rows the same way). W is 470 MB,
7.8x the H200's L2, so no call finds it in cache. One line per call with the median time and the
rate in GB/s, counted as the pair counts (2 n k + 2 m k + 2 m n bytes), and its share of
--read-roof-gbps when given (the DRAM read roof `roofbench ceilings` measured: ceilings'
dram_read_gbps in expectations/<hardware-key>.json).

    python3 scripts/torch_gemv.py [--n 28672] [--k 8192] [--tokens 1,4,16] [--samples 30]
                                  [--read-roof-gbps G]
"""
import argparse
import statistics
import sys


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=28672, help="rows of W (output features)")
    ap.add_argument("--k", type=int, default=8192, help="columns of W (input features)")
    ap.add_argument("--tokens", default="1,4,16", help="token counts m, comma separated")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--read-roof-gbps", type=float, default=0.0,
                    help="the measured DRAM read roof, for the share column (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def bytes_of(n, k, m):
    """The pair's work model: W read once, x read once, y written once, 2 bytes each."""
    return 2 * n * k + 2 * m * k + 2 * m * n


def time_call(torch, fn, samples):
    """Median milliseconds of one call: launches per sample chosen so a sample lasts >= ~1 ms."""
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    reps = max(1, int(1.0 / max(start.elapsed_time(stop), 1e-3)) + 1)
    times = []
    for _ in range(samples):
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / reps)
    return statistics.median(times), reps


def main():
    args = parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("torch_gemv: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_gemv: no CUDA device", file=sys.stderr)
        return 3
    torch.manual_seed(args.seed)
    n, k = args.n, args.k
    w = (torch.randn(n, k, device="cuda") / k ** 0.5).to(torch.bfloat16)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, W {n} x {k} bf16")
    status = 0
    for m in [int(t) for t in args.tokens.split(",")]:
        x = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        ref = (x.double() @ w.double().t()).float()
        calls = {"matmul": lambda: torch.matmul(x, w.t()), "F.linear": lambda: F.linear(x, w)}
        for name, fn in calls.items():
            y = fn()
            err = ((y.float() - ref).norm() / ref.norm()).item()
            if not err <= 4e-3:
                print(f"m{m} {name}: rel_err {err:.3g} above 4e-3: wrong call", file=sys.stderr)
                status = 1
            ms, reps = time_call(torch, fn, args.samples)
            gbps = bytes_of(n, k, m) / (ms * 1e-3) / 1e9
            share = (f", {gbps / args.read_roof_gbps * 100:.1f}% of the read roof"
                     if args.read_roof_gbps > 0 else "")
            print(f"m{m} {name}: {ms * 1e3:.2f} us median of {args.samples} samples of {reps}, "
                  f"{gbps:.1f} GB/s{share}, rel_err {err:.2e}")
    return status


if __name__ == "__main__":
    sys.exit(main())
