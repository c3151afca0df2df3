/* SPDX-License-Identifier: MIT */
/*
 * What `roofbench profile` measured: Nsight Compute's raw CSV (`ncu --page raw --csv`) read into
 * one record per profiled kernel launch, those records gathered into each variant of each pair,
 * and each variant's declared work model checked against the DRAM bytes the counters saw. No
 * CUDA, no presentation: the report draws and prints these structs (report/profile_out.c,
 * report/plot_hier.c).
 *
 * The CSV: ncu's own lines ("==PROF==", "==WARNING==") and the application's output may come
 * before it; its first row names the columns ("ID","Process ID",...,"Kernel Name",... then one
 * column per metric), the second gives each column's unit ("byte", "Kbyte", "nsecond", "%",
 * "inst"), and each further row is one kernel launch. Values are quoted, numbers may hold
 * thousands separators ("1,234,567") and a metric ncu could not collect reads "n/a". Values are
 * converted to base units (bytes, seconds, counts) from the unit row, so the parser does not
 * rely on `--print-units base`.
 */
#ifndef RB_PROFILE_H
#define RB_PROFILE_H

#include <stddef.h>

#include "json.h"
#include "result.h"
#include "util.h"

/* The quantities of one launch, in base units; NaN where the capture lacks the metric. */
typedef enum rb_profile_metric {
    RB_PM_DRAM_BYTES,       /* read + write, or dram__bytes.sum.per_second x the duration */
    RB_PM_DRAM_READ_BYTES,  /* dram__bytes_read.sum */
    RB_PM_DRAM_WRITE_BYTES, /* dram__bytes_write.sum */
    RB_PM_L2_BYTES,         /* lts__t_bytes.sum */
    RB_PM_L1_BYTES,         /* l1tex__t_bytes.sum */
    RB_PM_SMEM_WAVEFRONTS,  /* l1tex__data_pipe_lsu_wavefronts_mem_shared.sum */
    RB_PM_SMEM_CONFLICTS,   /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum */
    RB_PM_FP32_FLOPS,       /* fadd + fmul + 2 ffma, thread instructions */
    RB_PM_FP64_FLOPS,       /* dadd + dmul + 2 dfma */
    RB_PM_FP16_FLOPS,       /* hadd + hmul + 2 hfma (non-tensor half) */
    /* tensor-pipe math ops by source precision: sm__ops_path_tensor_src_<p>[_dst_<q>].sum */
    RB_PM_TENSOR_FP16_OPS,
    RB_PM_TENSOR_BF16_OPS,
    RB_PM_TENSOR_TF32_OPS,
    RB_PM_TENSOR_FP8_OPS,
    RB_PM_TENSOR_FP64_OPS,
    RB_PM_TENSOR_ACTIVE_PCT, /* sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_... */
    RB_PM_OCCUPANCY_PCT,    /* sm__warps_active.avg.pct_of_peak_sustained_active */
    RB_PM_REGISTERS,        /* launch__registers_per_thread */
    RB_PM_TIME_S,           /* gpu__time_duration.sum */
    RB_PM_COUNT
} rb_profile_metric;

/* The metric's key in the profile document and its column in the table ("dram_read_bytes"). */
const char *rb_profile_metric_key(rb_profile_metric m);

#define RB_PROFILE_MAX_STALLS 24
#define RB_PROFILE_NAME_MAX 128

typedef struct rb_profile_stall {
    char reason[48]; /* "long_scoreboard", "barrier", "math_pipe_throttle" */
    double value;    /* warps stalled for it per issued instruction (ncu's ratio) */
} rb_profile_stall;

typedef struct rb_profile_launch {
    char kernel[RB_PROFILE_NAME_MAX]; /* the bare name: no "void ", template arguments, params */
    long long process;                /* ncu's Process ID */
    int table; /* which of the capture's tables (appended parts) it came from, from 0 */
    int grid[3]; /* ncu's "Grid Size" "(x, y, z)"; 0 0 0 when the capture lacks it */
    double v[RB_PM_COUNT];
    int n_stalls;
    rb_profile_stall stalls[RB_PROFILE_MAX_STALLS];
} rb_profile_launch;

typedef struct rb_profile_capture {
    int n, cap;
    rb_profile_launch *launches;
    char device[RB_PROFILE_NAME_MAX]; /* device__attribute_display_name, "" when absent */
} rb_profile_capture;

/* Parses ncu's raw CSV text (several captures may be appended: each header row starts a new
 * table, so parts profiled apart are merged by reading them in turn into one capture). 0, or -1
 * with one line in err: no header row, a unit row missing, a row with another number of fields
 * than its header, an unknown unit on a metric the profile uses, no kernel rows. */
int rb_profile_parse(const char *text, size_t len, rb_profile_capture *out, char *err,
                     size_t err_size);
void rb_profile_capture_free(rb_profile_capture *c);

/* One variant's kernel, as the pair's kernel table names it. */
typedef struct rb_profile_kernel_ref {
    const char *variant;
    const char *kernel;
} rb_profile_kernel_ref;

/* What the profile knows of one job of a pair before reading the capture: its name, work model
 * at the profiled size and the variants with the kernels they launch. */
typedef struct rb_profile_job {
    const char *pair;  /* the pair's name */
    const char *row;   /* "<pair>" or "<pair>.<input>", with the size: the row's label */
    double flops;      /* declared */
    double bytes[RB_MAX_VARIANTS]; /* declared compulsory DRAM bytes of each variant */
    int link_bytes;    /* bytes() counts a link's traffic, not DRAM: no work-model check */
    int n_variants;
    const char *variants[RB_MAX_VARIANTS];
    const rb_profile_kernel_ref *kernels; /* n_kernels entries */
    int n_kernels;
    int pair_index, input; /* the pair's place in the registry, the row's input: its marks */
} rb_profile_job;

/* The DRAM bytes a variant may move beyond or short of its declared compulsory bytes before it is
 * named: 10%. */
#define RB_PROFILE_BYTES_TOLERANCE 0.10

typedef enum rb_profile_bytes_verdict {
    RB_PB_UNCHECKED, /* not profiled, a link pair, or no declared bytes */
    RB_PB_MATCHES,   /* within RB_PROFILE_BYTES_TOLERANCE */
    RB_PB_MORE,      /* moves more than declared: sector waste, a re-read */
    RB_PB_LESS       /* moves less: part of the input came from L2, or the model overcounts */
} rb_profile_bytes_verdict;

typedef struct rb_profile_variant {
    char pair[RB_PROFILE_NAME_MAX], row[RB_PROFILE_NAME_MAX], variant[64];
    int profiled;       /* 0: none of its kernels is in the capture (library routines) */
    int n_kernels;      /* its launches found in the capture */
    int n_names;        /* the distinct kernel names among them, the first 4 in kernels[] */
    char kernels[4][RB_PROFILE_NAME_MAX];
    double v[RB_PM_COUNT]; /* summed over its kernels (occupancy: time-weighted; registers: max) */
    double declared_flops, declared_bytes;
    int n_stalls;       /* its stall reasons, largest first, value summed time-weighted */
    rb_profile_stall stalls[RB_PROFILE_MAX_STALLS];
    rb_profile_bytes_verdict bytes_verdict;
} rb_profile_variant;

#define RB_PROFILE_MAX_VARIANTS 512

typedef struct rb_profile {
    char device[RB_PROFILE_NAME_MAX];
    int n;
    rb_profile_variant *variants; /* RB_PROFILE_MAX_VARIANTS entries */
    int unmatched;                /* launches of the capture that name no variant's kernel */
    int repeats; /* launches left out: a kernel's second and later launches in one process */
    int windows; /* profile windows read (RB_PROFILE_MARK_KERNEL launches) */
} rb_profile;

/* The profile window. `roofbench profile` runs `check` under ncu with --profile-from-start off and
 * RB_PROFILE_WINDOWS_ENV=1 in its environment; each variant's child then profiles exactly one
 * run() after its validation, between cudaProfilerStart and cudaProfilerStop, the window opened
 * by a launch of RB_PROFILE_MARK_KERNEL with the grid (variant + 1, pair + 1, input + 1): the
 * variant's index in its pair, the pair's in the registry (rb_registry) and the row's input, so
 * the mark means the same whatever --filter chose (parts profiled apart merge). So every kernel
 * a variant launches is profiled once, a library's whatever its name, and no later launch is. */
#define RB_PROFILE_MARK_KERNEL "rb_profile_mark_kernel"
#define RB_PROFILE_WINDOWS_ENV "RB_PROFILE_WINDOWS"

/* Gathers the capture's launches into the jobs' variants. After a mark, every launch of its
 * process up to the next mark is the marked variant's (all of them: a multi-kernel run() sums);
 * a process's first mark goes to the first job of its pair and input that no process has yet
 * (a sweep's rows, one process each, in order).
 * A capture without marks (an older one, or ncu given --kernel-name): a launch belongs to the
 * variant whose kernel table names its kernel (the first variant that does, in the job's order);
 * launches of a process are matched to the jobs of their pair in the order the processes first
 * appear (one child process per job), and only the first launch of a kernel in a process counts
 * (check's second run of a variant, a multi-pass kernel's later passes are left out and counted
 * in repeats). 0, or -1 when out of memory. */
int rb_profile_build(const rb_profile_capture *c, const rb_profile_job *jobs, int n_jobs,
                     rb_profile *out);
void rb_profile_free(rb_profile *p);

/* The variant's measured DRAM bytes (read + write), NaN when not profiled. */
double rb_profile_dram_bytes(const rb_profile_variant *v);
/* The variant's measured FLOPs: FP32 + FP64 + FP16 from the pipes' thread instructions (an FMA
 * two) and the tensor pipe's math ops of every precision; NaN when the capture has none. */
double rb_profile_flops(const rb_profile_variant *v);
/* The stall's share of all the variant's stall reasons, 0..1. */
double rb_profile_stall_share(const rb_profile_variant *v, int k);

/* The ncu metrics the profile reads, comma-separated, for `ncu --metrics` (the stall reasons
 * come with `--section WarpStateStats`). */
void rb_profile_ncu_metrics(rb_sbuf *b);

/* ---- the hierarchical roofline ---- */

typedef enum rb_profile_level { RB_LEVEL_DRAM, RB_LEVEL_L2, RB_LEVEL_L1, RB_LEVEL_COUNT } rb_profile_level;
const char *rb_profile_level_name(rb_profile_level l); /* "dram", "l2", "l1" */
/* The bytes the variant moved at that level (DRAM: read + write), NaN when not profiled. */
double rb_profile_level_bytes(const rb_profile_variant *v, rb_profile_level l);
/* The FLOPs its points are placed with: the declared ones (the work model every roofline of the
 * suite uses: the counters' FLOPs are shown beside them), NaN when it declares none (a copy has
 * no point on the chart). */
double rb_profile_point_flops(const rb_profile_variant *v);

/* The roofs of the chart, from an expectation file's ceilings; NaN where it has none. The L1 roof
 * is the shared-memory one (smem_gbps): on Hopper the L1 and shared memory are one SRAM with one
 * data path, and no separate L1 roof is measured. */
typedef struct rb_profile_roofs {
    double level_gbps[RB_LEVEL_COUNT];
    double fp32_tflops, fp64_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops;
    char source[RB_PATH_BUF];
} rb_profile_roofs;
void rb_profile_roofs_none(rb_profile_roofs *r);
/* From the expectation file's document; source names it. */
void rb_profile_roofs_from(const json_value *expectation, const char *source, rb_profile_roofs *r);
/* The compute roof the variant's points are judged against: its largest FLOP pipe's (tensor ops
 * by precision, else FP64, FP16 or FP32), in TFLOP/s, NaN when none; *key names it
 * ("fp32_tflops"). */
double rb_profile_compute_roof(const rb_profile_variant *v, const rb_profile_roofs *r,
                               const char **key);

/* What the document says about how it was made. */
typedef struct rb_profile_meta {
    const char *git, *date, *size, *ncu_version, *command;
    double wall_s; /* the profile's time, NaN when read from captures */
} rb_profile_meta;

/* The profile document (docs/profile.md: its schema). NULL when out of memory. */
json_value *rb_profile_document(const rb_profile *p, const rb_profile_roofs *r,
                                const rb_profile_meta *m);

#endif
