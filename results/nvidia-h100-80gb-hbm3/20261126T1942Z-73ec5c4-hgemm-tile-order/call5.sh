#!/usr/bin/env bash
# hgemm step 7's tile order: groups of 4, 8 (today) and 16 cluster-rows; then ncu of step 7 and cuBLASLt at 8192^3.
set -u
O=$OUT
SIZES="8192x8192 4096x4096" CHECK=999x1021 ROUNDS=2 OUT=$O/order timeout 420 scripts/probes/gpu_variants.sh \
    g8= g4=-DHGEMM_SM90_GROUP_M=4 g16=-DHGEMM_SM90_GROUP_M=16 > /dev/null 2>&1
echo "probe exit $?"
grep -v "^ptxas\|bytes stack\|baseline\|   [a-z_]*  *[0-9.]* TFLOP" $O/order/summary.log | grep -E "==|optimized |fp8 " | tail -30
timeout 150 ncu --clock-control none --target-processes all \
    --kernel-name 'regex:hgemm_optimized_kernel|nvjet|sm90_xmma|cutlass' --launch-skip 30 --launch-count 8 \
    --metrics sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y \
    --csv build/sm_90/roofbench run --filter '^hgemm[.]square$' --size 8192x8192 --expect none --samples 3 > $O/ncu.csv 2> $O/ncu.err
echo "ncu exit $?"
awk -F'","' 'NR>1 {print substr($5,1,60), "|", $(NF-2), "|", $NF}' $O/ncu.csv | sed 's/"$//' | tee $O/ncu-summary.txt | head -80
