#!/usr/bin/env bash
# Call 1: fast.cu's kernel 12 vs cuBLAS beside roofbench's hgemm (same GPU, same call), then ncu
# of scan, rmsnorm (h64k, h256k), attention (d128) and the vectorized copy for reference.
set -u
O=$OUT; W=/tmp/w; L=$O/call1.log; mkdir -p $W/ncu $W/hg
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -n 1)"
( cd scratch/fastcu && nvcc -std=c++17 -O3 -DNDEBUG -gencode arch=compute_90a,code=sm_90a \
    --expt-relaxed-constexpr -w fc_bench.cu -o $W/fc_bench -lcublas -lcuda -ldl ) > $O/fc-build.log 2>&1 &
make -j16 ARCH=sm_90 all > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
wait; say "built (fc_bench: $(ls $W/fc_bench 2>&1))"
B=build/sm_90/roofbench
hg() {
    $B run --filter '^hgemm[.]square' --expect none --json $W/hg/hg$1.json > $W/hg/hg$1.log 2>&1
    say "hgemm run $1 exit $?"
    python3 - $W/hg/hg$1.json << 'PY' | tee -a $L
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pairs"]:
    v = {x["name"]: x for x in p["variants"]}
    r = lambda n: (v.get(n) or {}).get("rate") or float("nan")
    c = lambda n: (v.get(n) or {}).get("sm_clock_mhz")
    print("  %-18s optimized %.1f / library %.1f = %.3f (clk %s / %s)  fp8 %.1f / %.1f = %.3f" % (
        p["name"], r("optimized"), r("library"), r("optimized") / r("library"), c("optimized"),
        c("library"), r("fp8"), r("fp8_library"), r("fp8") / r("fp8_library")))
PY
}
hg 1
for s in 8192 6144 4096; do
    timeout 120 $W/fc_bench $s 6 2>&1 | tee -a $L
done
hg 2
tar czf $O/hgemm.tgz -C $W hg
say ncu
NCU="ncu --clock-control none --csv --page details --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
nc() { # name kernel-regex filter extra-metrics
    timeout 150 $NCU ${4:+--metrics $4} --kernel-name "regex:$2" --launch-skip 2 --launch-count 1 \
        $B run --filter "$3" --samples 3 --expect none > $W/ncu/$1.csv 2> $W/ncu/$1.err
    say "ncu $1 exit $? ($(wc -l < $W/ncu/$1.csv) lines)"
}
nc copy '^copy_vectorized_optimized_kernel$' '^copy_vectorized$'
nc scan_opt '^scan_optimized_kernel$' '^scan[.]int32$'
nc scan_cub 'DeviceScanKernel' '^scan[.]int32$'
nc rms64k '^rmsnorm_optimized_cluster_kernel$' '^rmsnorm[.]h64k$' l1tex__t_sector_hit_rate.pct,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum
nc rms256k '^rmsnorm_optimized_cluster_kernel$' '^rmsnorm[.]h256k$' l1tex__t_sector_hit_rate.pct,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum
nc att128 '^attention_optimized_kernel$' '^attention[.]d128$' sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
tar czf $O/ncu.tgz -C $W ncu
for f in $W/ncu/*.csv; do
    echo "--- $(basename $f)"
    grep -E '"(Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|L1/TEX Hit Rate|L2 Hit Rate|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued Instruction|Stall [A-Za-z ]*|dram__bytes_read.sum|dram__bytes_write.sum|lts__t_bytes.sum|l1tex__t_sector_hit_rate.pct|sm__[a-z_]*pct_of_peak_sustained_active)"' $f |
        awk -F'","' '{printf "  %-45s %-10s %s\n", $(NF-2), $(NF-1), $NF}' | sed 's/"$//'
done | tee $O/ncu-summary.txt
say done
