#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch SDPA with one query token over a contiguous KV cache: decode_attention's yardstick.

A diagnostic, not a dependency of roofbench: run it in the same GPU call as
`roofbench run --filter '^decode_attention$'`, so both are timed on the same card in the same
state. The shapes are the pair's five inputs at its full size (64 query heads over 8 KV heads,
head dim 128, bf16): b1_32k, b1_128k, b8_8k, b64_8k and the ragged batch (its lengths are the
pair's, bench/decode_attention.c's decode_len; SDPA has no ragged form, so the batch is padded
to its longest sequence and masked, and the rate counts the valid tokens only, as the pair's
work model does). The cache is contiguous (batch x 8 x len x 128), not paged: SDPA's best case.

Each backend that accepts the call (flash, efficient, cudnn, math; GQA by enable_gqa=True) is
checked against an fp32 evaluation and timed: --samples CUDA-event samples of --reps
back-to-back calls after a warm-up, the median. Prints one line an input and backend, and the
best backend's rate: GB/s counting K and V read once (4096 bytes a valid token) plus Q and O.

    python3 scripts/torch_decode.py [--samples 30] [--reps 20] [--inputs b1_32k,b64_8k]
"""
import argparse
import statistics
import sys

HEADS, KV_HEADS, DIM, CONTEXT, BATCH = 64, 8, 128, 8192, 64
RAGGED_SALT = 0xDEC0DE
MASK64 = (1 << 64) - 1


def mix64(x: int) -> int:
    """model/random.h's rb_mix64 (splitmix64's finalizer)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def ragged_lengths(context: int, batch: int) -> list:
    """bench/decode_attention.c's ragged lengths at rows = batch, cols = context."""
    n = min(16, max(5, batch // 4))
    out = []
    for i in range(n):
        if i == 0:
            length = context + 1
        elif i == 1:
            length = 1
        else:
            length = 1 + mix64(RAGGED_SALT + i) % (2 * context)
        out.append(length - 1 if length % 64 == 0 else length)
    return out


INPUTS = {
    "b1_32k": [4 * CONTEXT],
    "b1_128k": [16 * CONTEXT],
    "b8_8k": [CONTEXT] * (BATCH // 8),
    "b64_8k": [CONTEXT] * BATCH,
    "ragged": ragged_lengths(CONTEXT, BATCH),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--reps", type=int, default=20, help="calls per timed sample")
    ap.add_argument("--inputs", default=",".join(INPUTS), help="comma-separated input names")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import torch  # imported here so --help works without torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if not torch.cuda.is_available():
        print("torch_decode: no CUDA device", file=sys.stderr)
        return 3
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION),
                ("cudnn", SDPBackend.CUDNN_ATTENTION), ("math", SDPBackend.MATH)]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    status = 0
    for name in args.inputs.split(","):
        lens = INPUTS[name]
        batch, longest, tokens = len(lens), max(lens), sum(lens)
        q = torch.randn((batch, HEADS, 1, DIM), generator=gen, device=dev).to(torch.bfloat16)
        k = torch.randn((batch, KV_HEADS, longest, DIM), generator=gen, device=dev).to(torch.bfloat16)
        v = torch.randn((batch, KV_HEADS, longest, DIM), generator=gen, device=dev).to(torch.bfloat16)
        mask = None
        if any(n != longest for n in lens):
            pos = torch.arange(longest, device=dev)
            mask = (pos[None, :] < torch.tensor(lens, device=dev)[:, None])[:, None, None, :]
        with torch.no_grad():
            kf = k.float().repeat_interleave(HEADS // KV_HEADS, dim=1)
            vf = v.float().repeat_interleave(HEADS // KV_HEADS, dim=1)
            want = F.scaled_dot_product_attention(q.float(), kf, vf, attn_mask=mask)
            del kf, vf
        nbytes = tokens * 2 * KV_HEADS * DIM * 2 + batch * 2 * HEADS * DIM * 2
        best = None
        for bname, backend in backends:
            def step():
                return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
            try:
                with sdpa_kernel(backend), torch.no_grad():
                    got = step().float()
                    rel = (torch.linalg.vector_norm(got - want) /
                           torch.linalg.vector_norm(want)).item()
                    if not rel <= 6e-3:  # bench/decode_attention.c's tolerance
                        print(f"{name} {bname}: off by {rel:.3g} normwise")
                        status = 1
                        continue
                    for _ in range(5):
                        step()
                    torch.cuda.synchronize()
                    times = []
                    for _ in range(args.samples):
                        start = torch.cuda.Event(enable_timing=True)
                        end = torch.cuda.Event(enable_timing=True)
                        start.record()
                        for _ in range(args.reps):
                            step()
                        end.record()
                        end.synchronize()
                        times.append(start.elapsed_time(end) / args.reps)
            except RuntimeError as e:  # the backend refused the shape or is absent
                print(f"{name} {bname}: not run ({str(e).splitlines()[0][:100]})")
                continue
            ms = statistics.median(times)
            gbps = nbytes / ms / 1e6
            print(f"{name} {bname}: {ms * 1e3:.1f} us, {gbps:.0f} GB/s (err {rel:.2e})")
            if best is None or ms < best[1]:
                best = (bname, ms, gbps)
        if best:
            print(f"{name} best: {best[0]} {best[1] * 1e3:.1f} us, {best[2]:.0f} GB/s "
                  f"(batch {batch}, {tokens} tokens{', padded and masked' if mask is not None else ''})")
        del q, k, v, mask, want
        torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main())
