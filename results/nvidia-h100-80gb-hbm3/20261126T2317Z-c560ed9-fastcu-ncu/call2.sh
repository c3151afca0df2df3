#!/usr/bin/env bash
# Call 2: roofbench hgemm (optimized vs cuBLASLt) bracketing fast.cu kernel 12 vs cuBLAS, same GPU.
set -u
O=$OUT; W=/tmp/w; L=$O/call2.log; mkdir -p $W/hg
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
( cd scratch/fastcu && nvcc -std=c++17 -O3 -DNDEBUG -gencode arch=compute_90a,code=sm_90a \
    --expt-relaxed-constexpr -w fc_bench.cu -o $W/fc_bench -lcublas -lcuda -ldl ) > $O/fc-build.log 2>&1 &
make -j16 ARCH=sm_90 all > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
wait; say built
eval "$(sed -n '/^B=build/,/^}$/p' scratch/c1/call1.sh)"
for r in 1 2 3; do
    hg $r
    for s in 8192 6144 4096; do timeout 120 $W/fc_bench $s 4 2>&1 | grep -E "err|burst|sustained|median" | tee -a $L; done
done
hg 4
tar czf $O/hgemm.tgz -C $W hg
say done
