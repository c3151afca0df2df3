/* SPDX-License-Identifier: MIT */
/*
 * Roofline points. attainable = min(compute roof of the unit a variant uses, AI x memory roof);
 * written as times: floor = max(flops / compute roof, bytes / memory roof), and
 * efficiency = floor / measured time (1.0 = on the roof).
 */
#ifndef RB_ROOFLINE_H
#define RB_ROOFLINE_H

/* The arithmetic unit whose roof a variant is judged against. */
typedef enum rb_unit {
    RB_UNIT_NONE, /* moves data only: judged against the memory roof */
    RB_UNIT_FP32, /* CUDA cores, fp32 FMA */
    RB_UNIT_FP64,
    RB_UNIT_TF32, /* tensor cores */
    RB_UNIT_BF16,
    RB_UNIT_FP8,
    RB_UNIT_COUNT
} rb_unit;

/* "none", "fp32", ...; a roof's key in an expectation file is "<name>_tflops". */
const char *rb_unit_name(rb_unit u);

/* A set of roofs; NaN = unknown. */
typedef struct rb_roofs {
    double dram_gbps;
    double tflops[RB_UNIT_COUNT];
} rb_roofs;

/* All roofs unknown. */
void rb_roofs_unknown(rb_roofs *r);

typedef struct rb_point {
    double ai;         /* flops / byte; 0 for pure data movement */
    double gbps;       /* declared bytes / time */
    double tflops;     /* declared flops / time */
    double floor_ms;   /* the roofline's lower bound on time; NaN when a needed roof is unknown */
    double efficiency; /* floor_ms / ms; NaN when unknown */
    int memory_bound;  /* 1 when the memory term of the floor is the larger (or no flops) */
} rb_point;

void rb_roofline_point(double flops, double bytes, double ms, rb_unit unit, const rb_roofs *roofs,
                       rb_point *out);

#endif
