#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: scripts/nccl_tests.sh build|run TEST [ARGS...]   (NCCL_TESTS=scratch/nccl-tests)
# nccl-tests (github.com/NVIDIA/nccl-tests), the tool roofbench's collectives are checked
# against, built from a checkout the project does not track (NCCL_TESTS, default
# scratch/nccl-tests, which .gitignore covers) against the NCCL roofbench links (the Makefile's
# search: NCCL_HOME, the CUDA Toolkit, pip's nvidia-nccl-cu13, /usr), so both read one libnccl.
#   scripts/nccl_tests.sh build                  make MPI=0 in $NCCL_TESTS (its build/ folder)
#   scripts/nccl_tests.sh run all_reduce -g 2 -b 128M -e 1G -f 8 -w 5 -n 20 -c 1
#                                                one of its binaries (all_reduce_perf, ...)
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) unless the caller set it.
case "${1:-}" in -h | --help | "") sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -euo pipefail
cd "$(dirname "$0")/.."
NT=${NCCL_TESTS:-scratch/nccl-tests}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
[ -f "$NT/src/Makefile" ] || { echo "nccl_tests.sh: no nccl-tests checkout in $NT" >&2; exit 2; }

# nccl_home: the first folder with include/nccl.h and libnccl.so[.2], in the Makefile's order
nccl_home() {
    local d l pip
    pip=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' \
        2> /dev/null || true)
    for d in ${NCCL_HOME:-} "$CUDA_HOME" $pip /usr; do
        [ -f "$d/include/nccl.h" ] || continue
        for l in lib64 lib "lib/$(gcc -print-multiarch)"; do
            if [ -e "$d/$l/libnccl.so" ] || [ -e "$d/$l/libnccl.so.2" ]; then
                echo "$d $d/$l"
                return 0
            fi
        done
    done
    return 1
}
read -r home libdir < <(nccl_home) || { echo "nccl_tests.sh: NCCL not found" >&2; exit 2; }

case $1 in
build)
    # nccl-tests links -lnccl from $NCCL_HOME/lib: a shim folder gives it that layout
    shim=$PWD/$NT/nccl-home
    rm -rf "$shim" && mkdir -p "$shim/lib"
    ln -s "$home/include" "$shim/include"
    ln -s "$libdir"/libnccl.so* "$shim/lib/"
    [ -e "$shim/lib/libnccl.so" ] || ln -s libnccl.so.2 "$shim/lib/libnccl.so"
    gencode="-gencode=arch=compute_90,code=sm_90"
    make -C "$NT" -j"$(nproc)" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$shim" \
        NVCC_GENCODE="$gencode" > "$NT/build.log" 2>&1 ||
        { tail -n 30 "$NT/build.log" >&2; exit 1; }
    echo "nccl-tests built in $NT/build against $libdir"
    ;;
run)
    t=$2
    shift 2
    LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$NT/build/${t}_perf" "$@"
    ;;
*)
    echo "nccl_tests.sh: unknown command '$1' (build, run)" >&2
    exit 2
    ;;
esac
