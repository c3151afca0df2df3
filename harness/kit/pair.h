/* SPDX-License-Identifier: MIT */
/*
 * The contract between a pair and the harness. A pair is three files:
 *   kernels/<pair>.h   the seam: the extern "C" launchers and the kernel table, which both the
 *                      .cu and the .c include;
 *   kernels/<pair>.cu  the kernels, baseline and optimized side by side, with the launchers
 *                      that enqueue on a stream and return cudaGetLastError();
 *   bench/<pair>.c     one `const rb_pair rb_pair_<pair>` describing it (this struct: what
 *                      every pair sets, plus an optional rb_pair_ext for what only some need).
 * The registry (build/<arch>/registry.c) is generated from the file names in bench/.
 *
 * Contracts:
 * - run() only enqueues on the stream it is given: no sync, no allocation, no host copy (unless
 *   host transfer is the pattern, and then the pair says so).
 * - setup() allocates everything, fills inputs with seeded random values (never zeros) and
 *   prepares the reference; teardown() frees whatever setup got to, also after a failed setup.
 * - output() names the bytes the harness poisons (all 0xFF: NaN in fp32, bf16 and fp8) before
 *   every checked run, so an element the kernel does not write fails the check.
 * - check() compares the output with the reference: normwise relative error into *rel_err, NaN
 *   when anything is NaN. The harness judges it against the variant's tolerance.
 * - output(), check() and extras() get the variant's index in variants[]: output() names what
 *   that variant writes, check() checks what it wrote (the harness calls check() right after
 *   that variant ran), so a pair need not remember which variant ran last.
 * - flops() and bytes() are the work model: bytes is the compulsory DRAM traffic (each input
 *   read once, each output written once).
 * - Sizes count elements (n). A two-dimensional pair also has a shape: its ext->shape() callback
 *   derives rows x cols from n when the user gave none (--size N), or checks the one given
 *   (--size RxC); every other callback sees the resolved size. One-dimensional pairs have no
 *   shape() and see rows = 1, cols = n.
 * - A pair may run on several named inputs (histogram: uniform, skewed); each input is reported
 *   as its own row group, "<pair>.<input>", with its own expectations.
 * - A pair that can also run with one process per GPU (roofbench_mpi) has ext->setup_rank():
 *   setup() for one rank of a communicator the driver made (rb_comm). Every rank then calls the
 *   same callbacks in the same order, so a decision that changes which collectives run (a skip:
 *   RB_ERR_UNSUPPORTED from setup or from a variant's first run) must depend only on what all
 *   ranks share (ranks, size, input), and check() reports what holds over all ranks.
 */
#ifndef RB_PAIR_H
#define RB_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "model/codegen.h"
#include "model/result.h"
#include "model/util.h"
#include "kernel_info.h"
#include "rb_cuda.h"

#define RB_MAX_INPUTS 5
#define RB_MAX_DEFECTS 6

/* The processes of a multi-process run (roofbench_mpi: one per GPU, bootstrapped through MPI),
 * as the driver hands them to the harness (measure.c keeps the ranks' timing in step) and to a
 * pair's setup_rank(). No MPI or NCCL type: the harness and pair.h build without either. */
typedef struct rb_comm {
    int rank, ranks; /* this process's place, and how many there are */
    void *nccl;      /* the ncclComm_t of all ranks, made by the driver: use it, never destroy it */
    void (*barrier)(void);   /* returns once every rank has called it */
    double (*max)(double x); /* the largest x over all ranks; NaN on any rank: NaN */
    double (*sum)(double x); /* x summed over all ranks */
} rb_comm;

typedef struct rb_variant_def {
    const char *name; /* "baseline", "optimized", "library" or a step's name */
    rb_role role;
    rb_unit unit;     /* the arithmetic unit whose roof applies */
    double tolerance; /* normwise relative error allowed */
    rb_status (*run)(void *ctx, cudaStream_t stream);
    /* The bytes this variant must move when they differ from the pair's (gemm_precision: each
     * precision reads its own element size); NULL: the pair's bytes(). */
    double (*bytes)(const rb_size *size);
    /* The roof the variant is bound by: a key of harness/model/roofline.h ("dram_read_gbps",
     * "bf16_tflops", "pcie_h2d_gbps", "launch_us"). NULL: derived, the unit's compute roof
     * when the pair has flops, else dram_gbps. Its %ceil is against the measured value of that
     * key, its %peak against the datasheet's. */
    const char *roof;
    /* The extra (see rb_pair.extras) whose value is the variant's rate against its roof instead
     * of bytes / time: GB/s for a bandwidth roof (nccl's busbw), microseconds per launch or
     * graph node for a latency roof, which needs one. NULL: bytes / time. */
    const char *roof_rate;
    /* Why the host, not the GPU, sets this variant's time (a pageable copy staged by the
     * driver, a stream of host launches, a sum on the CPU): an informational row, measured,
     * compared and printed, whose verdict does not set the exit code unless --gate all. Only
     * a variant on a link or latency roof that is not the pair's answer (not optimized or
     * library) may say so (rb_pair_informational_check; tests/test_registry.c): a row a GPU
     * kernel or library bounds always gates. NULL: a gating row. */
    const char *host_bound_why;
} rb_variant_def;

/* A planted defect: a run with a bug a real kernel could have (a dropped tail, a skipped tile, a
 * wrong scale, a missing copy), usually a variant's own launcher called with one wrong argument.
 * tests/test_gpu.c runs each on every input at `size` (0: the odd size, 1000003 elements, or
 * 999 x 1021 for a pair with a shape) on a poisoned output and requires the check of `variant`
 * to fail against that variant's tolerance: a check that no realistic defect fails is itself a
 * defect. Where poison alone would catch the bug (an unwritten element is NaN), the defect is
 * one that writes every element, with wrong values. */
typedef struct rb_defect {
    const char *name; /* what the bug is: "dropped_tail", "wrong_scale" */
    int variant;      /* index of the variant whose output(), check() and tolerance judge it */
    rb_status (*run)(void *ctx, cudaStream_t stream);
    uint64_t size; /* 0: the odd size */
    /* The inputs (bit k: inputs[k]) the bug exists on (a causal mask's, on the causal inputs
     * alone); 0: all of them. */
    unsigned inputs;
    /* A race whose first run after setup is right and whose later runs are not (state a run
     * leaves that the next one trusts: a flag not cleared between launches). One run of it
     * passes its check; `roofbench check`'s second independent run must fail it, every time
     * (tests/test_gpu.c runs check on it 20 times, each after a fresh setup). */
    int race;
    /* How far beyond the tolerance the check must see it: err >= margin x tolerance (a bug a
     * tolerance catches only just is one a little more noise hides); 0: beyond it at all. */
    double margin;
} rb_defect;

/* Timing other than one variant after the other under the noise rule (runner/measure.h says how
 * each is measured, and its RB_SUSTAIN_* constants how long). */
typedef struct rb_pair_timing {
    /* Time the variants together, one sample of each in turn (rb_measure_rounds): for variants
     * whose difference is a few percent on a GPU whose clocks drift under its power cap (the
     * autotuned GEMM against the heuristic's). */
    int interleave;
    /* Time each variant sustained, at the full size, over at least sustain_s seconds of samples
     * after an untimed warm stretch: for variants that run into the board's power limit and
     * whose figure is what the tensor cores sustain, measured the way `roofbench ceilings`
     * measures the tensor roofs. With interleave too: rounds of sustained windows, each variant
     * in turn. Either way a variant so timed may raise its compute roof (model/report.h): the
     * roof is the best we reach. Not at a smaller size, with --cold or with --samples N. 0: not. */
    double sustain_s;
} rb_pair_timing;

/* What some pairs declare beyond the core (rb_pair.ext): first the needs of a few pairs, then
 * one pair's needs, each named for the pair that sets it (tests/test_contract.c holds each to
 * that pair alone); zero or NULL is "the pair does not need it". A reader takes a pair's
 * through rb_pair_ext_of(), which is never NULL. */
typedef struct rb_pair_ext {
    /* --- needs of a few pairs --- */
    int min_cc; /* compute capability x 10 the pair needs (90 for TMA); 0: any */
    /* Two-dimensional pairs: resolve the shape (see above). 0, or -1 with a reason. */
    int (*shape)(rb_size *size, char *why, size_t why_size);
    /* The work of one input, for inputs of different shapes; NULL: the pair's flops()/bytes(). */
    void (*work)(const rb_size *size, int input, double *flops, double *bytes);
    /* bytes() counts traffic over a link (PCIe, NVLink), not DRAM: no DRAM roof applies. */
    int link_bytes;
    /* Sizes a full run sweeps, each its own row group "<pair>[.<input>]@<size>"; 0-terminated,
     * NULL for none. --size smoke and --size N run one size as usual. */
    const uint64_t *sweep;
    rb_pair_timing timing; /* timing other than one variant after the other */
    /* 1: its time is the host's or the PCIe link's too (host transfers, stream overlap, host
     * launches): a run over several GPUs (--device all) times it one GPU at a time, never
     * beside another GPU's copy of it. */
    int host_shared;
    /* Figures beside the time, computed after every variant ran: median_ms[k] is variant k's
     * median (NaN when it was not timed). Fills out[] and returns how many; NULL for none. */
    int (*extras)(void *ctx, int variant, const double *median_ms, rb_extra out[RB_MAX_EXTRAS]);
    /* The library algorithm variant `variant` ran (its cublasLtMatmulAlgo_t: rb_lt_algo_describe
     * in harness/kit/gemm_ref.h), asked once the variant ran: 1 when out is filled, 0 when the
     * variant runs none. NULL: no variant does. The results write it as library_algo. */
    int (*library_algo)(void *ctx, int variant, rb_library_algo *out);

    /* --- one pair's needs --- */
    /* hgemm: input k's own sweep where it differs from .sweep (0-terminated); NULL: .sweep. */
    const uint64_t *input_sweep[RB_MAX_INPUTS];
    /* hgemm: with timing.sustain_s, the variants (bit k: variants[k]) a full run times at `size`
     * of input's sweep, below the full size (sustained as well: every row of a full run meets
     * the clock its roof was measured at); NULL: every variant. The others are skipped there,
     * their note saying swept_why: a ladder whose steps are taught at the full size, with rows
     * at other sizes for its top steps against the library. Not at a size asked with --size. */
    unsigned (*swept_variants)(int input, uint64_t size);
    /* hgemm: why a row of the sweep skips a variant (the note of the row it is not timed in). */
    const char *swept_why;
    /* hgemm: what a reader of variant's row must know of how it ran at this size (its library
     * on M and N padded to 8), asked once the variant ran: writes out (a line) and returns 1,
     * or returns 0. The results append it to the variant's note. */
    int (*variant_note)(void *ctx, int variant, char *out, size_t out_size);
    /* host_transfer: the roof of every variant on input k, when the input decides it (h2d or
     * d2h); NULL: each variant's own .roof. */
    const char *input_roofs[RB_MAX_INPUTS];
    /* p2p_copy: GPUs the pair needs (2); 0 or 1: one. Fewer visible: skipped. */
    int min_gpus;
    /* nccl_allreduce: operations each run() enqueues back to back (a collective called this
     * many times, nccl-tests' -n): the harness reports the time of one operation, a sample's
     * time / (launches x ops_per_run), so the cost of starting a run (events that fork and
     * join the GPUs) is shared by them all. Such a run() is timed behind a latch
     * (runner/measure.h). 0 or 1: run() is one operation. */
    int ops_per_run;
    /* nccl_allreduce: setup() for rank comm->rank of a multi-process run (see above): this
     * process drives one GPU, the current device, through comm. NULL: one process only. */
    rb_status (*setup_rank)(void **ctx, const rb_size *size, uint64_t seed, int input,
                            const rb_comm *comm);
    /* nccl_allreduce: the sizes of the sweep a full run takes when the machine shows one GPU
     * (0-terminated); NULL: all of them. A multi-GPU pair on one GPU moves nothing over a
     * link, and most of its sweep repeats what its neighbours show there. */
    const uint64_t *sweep_one_gpu;
} rb_pair_ext;

/* The contract: what every pair sets (tests/test_contract.c holds it to at most 20 fields, each
 * set by some pair). What only some pairs need is in ext. */
typedef struct rb_pair {
    const char *name;
    const char *pattern;            /* one line: what the pair teaches */
    const char *size_unit;          /* what --size N counts, e.g. "fp32 elements" */
    uint64_t smoke_size, full_size; /* elements */
    /* The work model. Plain arithmetic on the size: no CUDA call (the parent, which forks the
     * pairs' children, calls them too and must not initialise CUDA). */
    double (*flops)(const rb_size *size);
    double (*bytes)(const rb_size *size);
    /* input: index into inputs[] (0 when the pair has none). */
    rb_status (*setup)(void **ctx, const rb_size *size, uint64_t seed, int input);
    /* variant: index into variants[] (see above). */
    void (*output)(void *ctx, int variant, void **dev_ptr, size_t *bytes);
    rb_status (*check)(void *ctx, int variant, cudaStream_t stream, double *rel_err);
    void (*teardown)(void *ctx);
    /* The CPU reference against a hand-computed case: 0, or -1 with a reason. */
    int (*selftest)(char *why, size_t why_size);
    /* Codegen checks (tests/test_codegen.c, in CI): instructions the optimized kernels must
     * contain, ended by a rule with kernel NULL. Kernels named <pair>_optimized... must not
     * spill or use local memory. */
    rb_codegen_rule codegen[RB_MAX_CODEGEN];
    /* The kernels the variants launch, {0}-terminated (kernels/<pair>.cu defines the table):
     * the results record each one's registers, shared and local memory and occupancy. */
    const rb_kernel_info *kernels;
    int n_inputs; /* 0: one unnamed input */
    const char *inputs[RB_MAX_INPUTS];
    int n_variants;
    rb_variant_def variants[RB_MAX_VARIANTS];
    /* At least one, ended by a defect with name NULL (see rb_defect). */
    rb_defect defects[RB_MAX_DEFECTS];
    const rb_pair_ext *ext; /* what only some pairs need; NULL: none of it */
} rb_pair;

/* p's extension, or an empty one (all zero) when p has none: never NULL. */
const rb_pair_ext *rb_pair_ext_of(const rb_pair *p);

/* Resolves a requested size for pair p (shape() or the 1D rule). Refuses a size above
 * RB_MAX_ELEMENTS before any shape rule sees it, and a shape whose rows x cols is not its n.
 * 0, or -1 with a reason. */
int rb_pair_resolve_size(const rb_pair *p, const rb_size *requested, rb_size *out, char *why,
                         size_t why_size);

/* Does a full run on `gpus` GPUs take `size` of p's sweep? 1: yes; 0: one GPU and size is not
 * in ext->sweep_one_gpu. */
int rb_pair_sweeps_size(const rb_pair *p, uint64_t size, int gpus);

/* Is p timed sustained at `size` (ext->timing.sustain_s)? swept: the size is a row of a full
 * run's sweep. 1 at the full size and above, and at every swept size; 0 at any other size (a
 * smoke size has no steady state to reach) and for a pair that does not sustain. */
int rb_pair_sustains(const rb_pair *p, uint64_t size, int swept);

/* Does a full run skip variant k of p at `size` of input's sweep (ext->swept_variants)?
 * 1: skipped there, for ext->swept_why; 0: timed. */
int rb_pair_swept_skips(const rb_pair *p, int k, int input, uint64_t size, int swept);

/* The roof variant k of p is placed on when it runs on `input` with `flops` (see
 * rb_variant_def.roof and ext->input_roofs). 0, or -1 when the key declared is not a roof's
 * (tests/test_registry.c keeps every declared key valid). */
int rb_pair_variant_roof(const rb_pair *p, int k, int input, double flops, rb_roof *out);

/* The reason variant k of p is informational on `input` (its host_bound_why, which holds on
 * every input), or NULL for a gating row. */
const char *rb_pair_host_bound(const rb_pair *p, int k, int input);

/* Whether variant k of p may be informational: 0, or -1 with why (a reason shorter than a
 * sentence, an optimized or library variant, a roof on some input that is neither a link nor a
 * latency roof). */
int rb_pair_informational_check(const rb_pair *p, int k, char *why, size_t why_size);

/* Generated from the files in bench/, NULL-terminated, in file-name order. */
extern const rb_pair *const rb_registry[];
/* p's index in rb_registry (the registry's length when p is not in it): the pair number a profile
 * window's mark carries. */
int rb_registry_index(const rb_pair *p);
/* Pairs this build left out, as "<pair>: <why>" (no NCCL, say), NULL-terminated. */
extern const char *const rb_registry_missing[];

#endif
