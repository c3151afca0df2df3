#!/usr/bin/env bash
# 4-GPU call 3: the node's expectation file (link ceilings; nccl_allreduce and p2p_copy from 3 runs),
# then rmsnorm on GPU 0 (the clusters_fit extras, first read).
set -u
export GIT_REV=2b7c95d NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
O=$OUT; W=/tmp/w; mkdir -p $W/rec $W/rms
say() { echo "== $(date -u +%T) $*" | tee -a $O/call3.log; }
make -j64 ARCH=sm_90 build/sm_90/roofbench > $W/build.log 2>&1 || { tail -20 $W/build.log; exit 1; }
B=build/sm_90/roofbench
say "ceilings --links"
(time $B ceilings --links) > $W/rec/ceilings-links.log 2>&1; say "exit $?"
tail -8 $W/rec/ceilings-links.log | tee -a $O/call3.log
say record
timeout 420 $B run --filter '^(nccl_allreduce|p2p_copy)' --update-expectations --repeat 3 \
    --json $W/rec/record.json > $W/rec/record.log 2>&1
say "record exit $?"; grep -E "^verdicts|written|regression thresholds|^exit" $W/rec/record.log | tail -5 | tee -a $O/call3.log
cp expectations/*-x4.json $W/rec/ 2>/dev/null; ls $W/rec | tee -a $O/call3.log
tar czf $O/record.tgz -C $W rec
say rmsnorm
timeout 60 $B run --filter '^rmsnorm$' --device 0 --json $W/rms/rmsnorm.json > $W/rms/rmsnorm.log 2>&1
say "rmsnorm exit $?"; grep -E "clusters_fit|blocks_in_clusters|optimized|library" $W/rms/rmsnorm.log | head -30 | tee -a $O/call3.log
tar czf $O/rms.tgz -C $W rms
