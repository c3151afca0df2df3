/* SPDX-License-Identifier: MIT */
/*
 * The roofs and the roofline points placed under them.
 *
 * A roof is one of a fixed table of keys (the same keys in expectation files and results files):
 * its kind and unit are in its name's suffix, _gbps (bandwidth, 1e9 bytes/s), _tflops (compute,
 * 1e12 flop/s, dense) or _us (latency, microseconds). Every variant is placed on one roof, which
 * its pair declares or the harness derives (harness/kit/pair.h, rb_variant_def.roof).
 *
 * Against a compute roof: floor = max(flops / compute roof, bytes / dram_gbps) (the classic
 * roofline, attainable = min(compute, AI x memory)). Against a bandwidth roof: floor =
 * max(bytes / that roof, flops / the unit's compute roof when known), or, when the pair gives its
 * own rate (an extra in GB/s: nccl's bus bandwidth), rate / roof. Against a latency roof: the
 * pair gives its time per launch or graph node (an extra in microseconds), and efficiency = roof
 * / that time. efficiency = floor / measured time (1.0 = on the roof).
 */
#ifndef RB_ROOFLINE_H
#define RB_ROOFLINE_H

/* The arithmetic unit a variant uses: derives its default roof (a compute roof when it has
 * flops). */
typedef enum rb_unit {
    RB_UNIT_NONE, /* moves data only: judged against the memory roof */
    RB_UNIT_FP32, /* CUDA cores, fp32 FMA */
    RB_UNIT_FP64,
    RB_UNIT_TF32, /* tensor cores */
    RB_UNIT_BF16,
    RB_UNIT_FP8,
    RB_UNIT_FP16,
    RB_UNIT_COUNT
} rb_unit;

/* "none", "fp32", ... */
const char *rb_unit_name(rb_unit u);

typedef enum rb_roof_kind { RB_KIND_BANDWIDTH, RB_KIND_COMPUTE, RB_KIND_LATENCY } rb_roof_kind;

/* Every roof key (docs: README "The roofs"). The order is the order of rb_roof_key's table. */
typedef enum rb_roof {
    RB_ROOF_DRAM,        /* dram_gbps: a copy kernel, read + write counted */
    RB_ROOF_DRAM_READ,   /* dram_read_gbps: a read-only stream */
    RB_ROOF_DRAM_WRITE,  /* dram_write_gbps: a write-only stream */
    RB_ROOF_L2_READ,     /* l2_read_gbps: reads of a working set that fits in L2 */
    RB_ROOF_SMEM,        /* smem_gbps: shared memory, per SM x SMs */
    RB_ROOF_PCIE_H2D,    /* pcie_h2d_gbps: pinned host to device */
    RB_ROOF_PCIE_D2H,    /* pcie_d2h_gbps */
    RB_ROOF_PCIE_DUPLEX, /* pcie_duplex_gbps: both directions at once, bytes of both counted */
    RB_ROOF_NVLINK,      /* nvlink_gbps: a peer copy, the best pair one way (2+ GPUs only) */
    RB_ROOF_NVLINK_BIDIR, /* nvlink_bidir_gbps: the best pair both ways at once, bytes of both */
    RB_ROOF_FP32,        /* fp32_tflops */
    RB_ROOF_FP64,
    RB_ROOF_TF32,
    RB_ROOF_BF16,
    RB_ROOF_FP16,
    RB_ROOF_FP8,
    RB_ROOF_LAUNCH,     /* launch_us: one empty kernel launched on a stream, back to back */
    RB_ROOF_GRAPH_NODE, /* graph_node_us: one node of a CUDA graph of empty kernels */
    /* dram_latency_us: one load of a pointer chase over a footprint many times L2 (the latency
     * of Little's law, bytes in flight = bandwidth x latency) */
    RB_ROOF_DRAM_LATENCY,
    RB_ROOF_COUNT
} rb_roof;

/* "dram_gbps", ...; "?" out of range. */
const char *rb_roof_key(rb_roof r);
/* 0 and *out, or -1 when key is not a roof's. */
int rb_roof_from_key(const char *key, rb_roof *out);
rb_roof_kind rb_roof_kind_of(rb_roof r);
/* "bandwidth", "compute", "latency". */
const char *rb_roof_kind_name(rb_roof_kind k);
/* A host or peer link (pcie_*, nvlink): its bytes are not DRAM traffic. */
int rb_roof_is_link(rb_roof r);
/* DRAM traffic (dram_*): a rate above the DRAM datasheet peak cannot have come from DRAM. */
int rb_roof_is_dram(rb_roof r);
/* The compute roof of unit u (RB_ROOF_COUNT for RB_UNIT_NONE). */
rb_roof rb_roof_of_unit(rb_unit u);
/* The roof a variant gets when its pair declares none: its unit's compute roof when it has
 * flops, else dram_gbps. */
rb_roof rb_roof_derived(rb_unit u, double flops);

#define RB_RAISED_BY_MAX 100

/* A value per roof; NaN = unknown. For measured roofs (ceilings) also the noise of their
 * measurement (NaN: unknown), and a roof the run raised (model/report.h, rb_report_derive): the
 * value `roofbench ceilings` measured, and the variant that ran faster in the same regime. */
typedef struct rb_roofs {
    double value[RB_ROOF_COUNT];
    double noise[RB_ROOF_COUNT];
    double measured[RB_ROOF_COUNT];                  /* before a raise; NaN: not raised */
    char raised_by[RB_ROOF_COUNT][RB_RAISED_BY_MAX]; /* "<row group>/<variant>"; "": not raised */
} rb_roofs;

/* All roofs unknown, none raised. */
void rb_roofs_unknown(rb_roofs *r);

typedef struct rb_point {
    double ai;         /* flops / byte; 0 for pure data movement */
    double gbps;       /* declared bytes / time */
    double tflops;     /* declared flops / time */
    double floor_ms;   /* the roofline's lower bound on time; NaN when a needed roof is unknown */
    double efficiency; /* floor_ms / ms; NaN when unknown */
    int memory_bound;  /* 1 when the memory term of the floor is the larger (or no flops) */
    /* 1 when a compute roof binds and the floor is known (the results' "bound" says "compute"):
     * read back as the file recorded it, which a file of an older build may say otherwise */
    int compute_bound;
    /* The roof that binds at this point: the one the variant is named by and judged against.
     * On a compute roof whose memory term is the larger, dram_gbps (softmax is placed on
     * fp32_tflops and bound by DRAM); on a bandwidth roof whose compute term is the larger,
     * the unit's compute roof; else the roof itself. The roof itself when a roof it needs is
     * unknown (floor_ms NaN); RB_ROOF_COUNT for a point never placed. */
    rb_roof binding;
} rb_point;

/* A point with every number NaN and no binding roof: a variant that was not timed. */
void rb_point_none(rb_point *p);

/* The point of a variant that ran `ms` on `roof`. rate: the pair's own rate against that roof
 * (GB/s for a bandwidth roof, microseconds per launch or node for a latency roof), NaN for none
 * (bytes / time); a latency roof without a rate, or a rate that is not positive, has no
 * efficiency (NaN). */
void rb_roofline_point(double flops, double bytes, double ms, rb_unit unit, rb_roof roof,
                       double rate, const rb_roofs *roofs, rb_point *out);

#endif
