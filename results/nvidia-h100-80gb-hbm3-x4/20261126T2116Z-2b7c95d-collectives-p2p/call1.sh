#!/usr/bin/env bash
# 4-GPU call 1: the collectives' checks and agreement with nccl-tests, then the P2P matrix.
set -u
export GIT_REV=2b7c95d
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,power.limit --format=csv > $OUT/gpus.csv
OUT=$OUT timeout 585 scripts/gpu_multi.sh collectives p2p
echo "exit $?"
