#!/usr/bin/env bash
# 4-GPU call 2: run --device all (clean, then a DRAM streamer on GPU 1) and the 4-rank fleet posing as 2 nodes.
set -u
export GIT_REV=2b7c95d
OUT=$OUT timeout 585 scripts/gpu_multi.sh node fleet
echo "exit $?"
