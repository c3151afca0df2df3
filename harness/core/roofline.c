/* SPDX-License-Identifier: MIT */
#include "roofline.h"

#include <math.h>

const char *rb_unit_name(rb_unit u)
{
    static const char *const names[RB_UNIT_COUNT] = {"none", "fp32", "fp64", "tf32", "bf16", "fp8"};
    return (unsigned)u < RB_UNIT_COUNT ? names[u] : "?";
}

void rb_roofs_unknown(rb_roofs *r)
{
    r->dram_gbps = NAN;
    for (int i = 0; i < RB_UNIT_COUNT; i++)
        r->tflops[i] = NAN;
}

void rb_roofline_point(double flops, double bytes, double ms, rb_unit unit, const rb_roofs *roofs,
                       rb_point *out)
{
    double s = ms * 1e-3;
    out->ai = bytes > 0 ? flops / bytes : NAN;
    out->gbps = bytes / s * 1e-9;
    out->tflops = flops / s * 1e-12;

    double mem_s = bytes > 0 ? bytes / (roofs->dram_gbps * 1e9) : 0.0;
    double compute_s = 0.0;
    if (flops > 0) {
        double roof = (unit > RB_UNIT_NONE && unit < RB_UNIT_COUNT) ? roofs->tflops[unit] : NAN;
        compute_s = flops / (roof * 1e12);
    }
    out->memory_bound = !(compute_s > mem_s);
    /* Unknown or non-positive roofs propagate NaN (or Inf) here; report them as unknown. */
    double floor_s = fmax(mem_s, compute_s);
    if (isnan(mem_s) || isnan(compute_s) || !isfinite(floor_s) || !(s > 0)) {
        out->floor_ms = NAN;
        out->efficiency = NAN;
        return;
    }
    out->floor_ms = floor_s * 1e3;
    out->efficiency = floor_s / s;
}
