#!/usr/bin/env bash
# 4-GPU call 5: the latch fallback's GPU test; collectives beside nccl-tests on 4 GPUs, then on the node's first 2.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID
O=$OUT; L=$O/call5.log
say() { echo "== $(date -u +%T) $*" | tee -a $L; }
say "GIT_REV=$GIT_REV $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader >> $L
make -j64 ARCH=sm_90 build/sm_90/roofbench build/sm_90/rbtest > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
say built
RBTEST_CASE=latch_leaves_the_hosts_queuing_untimed build/sm_90/rbtest build/sm_90/roofbench gpu >> $L 2>&1
say "latch test exit $?"
OUT=$O/agree4 timeout 250 scripts/nccl_agree.sh > /dev/null 2>&1; say "agree 4 GPUs exit $?"
sed -n '/| collective/,$p' $O/agree4/summary.log | tee -a $L
OUT=$O/agree2 GPUS=2 timeout 130 scripts/nccl_agree.sh > /dev/null 2>&1; say "agree 2 GPUs exit $?"
sed -n '/| collective/,$p' $O/agree2/summary.log | tee -a $L
