#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch scaled_dot_product_attention (flash and cuDNN backends) on attention's shapes.

A diagnostic, not a dependency of roofbench: run it in the same GPU call as the suite, so the
pair's rates and PyTorch's are taken on the same card in the same state. For each shape (the
pair's four inputs at the full size: b4 h16 s8192, head dim 128 and 64, causal or not) and each
backend, bf16 q, k, v uniform in (-2, 2), (-2, 2), (-1, 1) as the pair makes them: a check of
one output against an fp32 evaluation (a wrong call, not a benchmark), then sustained timing the
way the suite times tensor-core steps: --warm-s seconds of untimed launches, then samples of
back-to-back launches (each sample >= ~1 ms) between CUDA events for at least --sustain-s
seconds; one line per case with the median and the rate in TFLOP/s, counted as the pair counts
(4 b h s^2 d, half of it causal), and the SM clock, power and throttle reasons nvidia-smi read
during the timed samples.

    python3 scripts/torch_sdpa.py [--batch 4] [--heads 16] [--seq 8192] [--dims 128,64]
                                  [--warm-s 0.5] [--sustain-s 1.0] [--backends flash,cudnn]
"""
import argparse
import statistics
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--dims", default="128,64", help="head dims, comma separated")
    ap.add_argument("--backends", default="flash,cudnn", help="flash, cudnn (comma separated)")
    ap.add_argument("--warm-s", type=float, default=0.5)
    ap.add_argument("--sustain-s", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


class ClockSampler:
    """The GPU's SM clock, power and throttle reasons read by nvidia-smi every 100 ms while the
    timed samples run, so a rate can be set beside the clock it ran at (the pair's results record
    theirs the same way). None when nvidia-smi is not there."""

    QUERY = "clocks.sm,power.draw,clocks_throttle_reasons.active"

    def __enter__(self):
        import subprocess

        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--id=0", f"--query-gpu={self.QUERY}",
                 "--format=csv,noheader,nounits", "-lms", "100"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            self.proc = None
        return self

    def __exit__(self, *exc):
        self.lines = []
        if self.proc is not None:
            self.proc.terminate()
            out, _ = self.proc.communicate()
            self.lines = [l.split(",") for l in out.splitlines() if l.count(",") == 2]
        return False

    def summary(self):
        rows = []
        for mhz, watts, reasons in self.lines:
            try:
                rows.append((float(mhz), float(watts), int(reasons.strip(), 16)))
            except ValueError:
                continue
        if not rows:
            return "clock n/a"
        mhz = [r[0] for r in rows]
        watts = statistics.mean(r[1] for r in rows)
        # bits of nvmlClocksEventReasons: 0x4 power cap, 0x20 sw thermal, 0x40 hw thermal-or-
        # power-brake slowdown, 0x8 hw slowdown
        seen = 0
        for r in rows:
            seen |= r[2]
        names = [n for bit, n in ((0x4, "power_cap"), (0x8, "hw_slowdown"), (0x20, "sw_thermal"),
                                  (0x40, "hw_thermal")) if seen & bit]
        return (f"clock {statistics.mean(mhz):.0f} MHz (min {min(mhz):.0f}), {watts:.0f} W, "
                f"{'+'.join(names) or 'no throttle'}")


def timed_sample(step, reps, torch):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        step()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / reps


def sustained_median_ms(step, warm_s, sustain_s, torch):
    """Median ms per launch after warm_s of untimed launches, over >= sustain_s of samples."""
    end = time.perf_counter() + warm_s
    while time.perf_counter() < end:
        step()
    torch.cuda.synchronize()
    one_ms = timed_sample(step, 1, torch)
    reps = max(1, int(1.0 / max(one_ms, 1e-3)))  # a sample of >= ~1 ms
    times, spent = [], 0.0
    with ClockSampler() as clock:
        while spent < sustain_s * 1e3 or len(times) < 10:
            t = timed_sample(step, reps, torch)
            times.append(t)
            spent += t * reps
    return statistics.median(times), len(times), reps, clock.summary()


def check(q, k, v, causal, out, torch):
    """Normwise error of out against an fp32 evaluation of the first batch entry's first head."""
    scale = q.shape[-1] ** -0.5
    qf, kf, vf = (t[0, 0].float() for t in (q, k, v))
    s = qf @ kf.T * scale
    if causal:
        n = s.shape[0]
        mask = torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    want = torch.softmax(s, dim=-1) @ vf
    got = out[0, 0].float()
    return (torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want)).item()


def run_case(args, d, causal, backend, torch):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    shape = (args.batch, args.heads, args.seq, d)

    def uniform(scale):
        return ((torch.rand(shape, generator=gen, device=dev) * 2 - 1) * scale).to(torch.bfloat16)

    q, k, v = uniform(2.0), uniform(2.0), uniform(1.0)
    which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    name = f"d{d}{'_causal' if causal else ''}"
    try:
        with sdpa_kernel([which]), torch.no_grad():
            step = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            rel = check(q, k, v, causal, step(), torch)
            med_ms, samples, reps, clock = sustained_median_ms(step, args.warm_s, args.sustain_s, torch)
    except RuntimeError as e:  # a backend this build or GPU does not have
        print(f"torch_sdpa {backend:5s} {name:12s} unavailable: {str(e).splitlines()[0]}")
        return 0
    if not rel <= 1e-2:  # bf16 output and P: ~2e-3 (bench/attention.c)
        print(f"torch_sdpa {backend} {name}: result off by {rel:.3g} normwise", file=sys.stderr)
        return 1
    flops = 4.0 * args.batch * args.heads * args.seq**2 * d / (2.0 if causal else 1.0)
    print(
        f"torch_sdpa {backend:5s} {name:12s} b{args.batch} h{args.heads} s{args.seq}: "
        f"median {med_ms:.4f} ms ({samples} samples of {reps}), "
        f"{flops / (med_ms * 1e-3) / 1e12:.1f} TFLOP/s, rel_err {rel:.2e}; {clock}"
    )
    return 0


def main() -> int:
    args = parse_args()
    import torch  # imported here so --help works without torch

    if not torch.cuda.is_available():
        print("torch_sdpa: no CUDA device", file=sys.stderr)
        return 3
    print(f"torch_sdpa {torch.cuda.get_device_name()} torch {torch.__version__}")
    rc = 0
    for d in (int(x) for x in args.dims.split(",")):
        for causal in (0, 1):
            for backend in args.backends.split(","):
                rc |= run_case(args, d, causal, backend, torch)
    return rc


if __name__ == "__main__":
    sys.exit(main())
