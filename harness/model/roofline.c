/* SPDX-License-Identifier: MIT */
#include "roofline.h"

#include <math.h>
#include <string.h>

const char *rb_unit_name(rb_unit u)
{
    static const char *const names[RB_UNIT_COUNT] = {"none", "fp32", "fp64", "tf32",
                                                     "bf16", "fp8",  "fp16"};
    return (unsigned)u < RB_UNIT_COUNT ? names[u] : "?";
}

static const struct {
    const char *key;
    rb_roof_kind kind;
} roof_table[RB_ROOF_COUNT] = {
    {"dram_gbps", RB_KIND_BANDWIDTH},        {"dram_read_gbps", RB_KIND_BANDWIDTH},
    {"dram_write_gbps", RB_KIND_BANDWIDTH},  {"l2_read_gbps", RB_KIND_BANDWIDTH},
    {"smem_gbps", RB_KIND_BANDWIDTH},        {"pcie_h2d_gbps", RB_KIND_BANDWIDTH},
    {"pcie_d2h_gbps", RB_KIND_BANDWIDTH},    {"pcie_duplex_gbps", RB_KIND_BANDWIDTH},
    {"nvlink_gbps", RB_KIND_BANDWIDTH},      {"nvlink_bidir_gbps", RB_KIND_BANDWIDTH},
    {"fp32_tflops", RB_KIND_COMPUTE},
    {"fp64_tflops", RB_KIND_COMPUTE},        {"tf32_tflops", RB_KIND_COMPUTE},
    {"bf16_tflops", RB_KIND_COMPUTE},        {"fp16_tflops", RB_KIND_COMPUTE},
    {"fp8_tflops", RB_KIND_COMPUTE},         {"launch_us", RB_KIND_LATENCY},
    {"graph_node_us", RB_KIND_LATENCY},      {"dram_latency_us", RB_KIND_LATENCY},
};

const char *rb_roof_key(rb_roof r)
{
    return (unsigned)r < RB_ROOF_COUNT ? roof_table[r].key : "?";
}

int rb_roof_from_key(const char *key, rb_roof *out)
{
    for (int r = 0; key && r < RB_ROOF_COUNT; r++)
        if (strcmp(key, roof_table[r].key) == 0) {
            *out = (rb_roof)r;
            return 0;
        }
    return -1;
}

rb_roof_kind rb_roof_kind_of(rb_roof r)
{
    return (unsigned)r < RB_ROOF_COUNT ? roof_table[r].kind : RB_KIND_BANDWIDTH;
}

const char *rb_roof_kind_name(rb_roof_kind k)
{
    return k == RB_KIND_COMPUTE ? "compute" : k == RB_KIND_LATENCY ? "latency" : "bandwidth";
}

int rb_roof_is_link(rb_roof r)
{
    return r == RB_ROOF_PCIE_H2D || r == RB_ROOF_PCIE_D2H || r == RB_ROOF_PCIE_DUPLEX ||
           r == RB_ROOF_NVLINK || r == RB_ROOF_NVLINK_BIDIR;
}

int rb_roof_is_dram(rb_roof r)
{
    return r == RB_ROOF_DRAM || r == RB_ROOF_DRAM_READ || r == RB_ROOF_DRAM_WRITE;
}

rb_roof rb_roof_of_unit(rb_unit u)
{
    static const rb_roof roofs[RB_UNIT_COUNT] = {RB_ROOF_COUNT, RB_ROOF_FP32, RB_ROOF_FP64,
                                                 RB_ROOF_TF32,  RB_ROOF_BF16, RB_ROOF_FP8,
                                                 RB_ROOF_FP16};
    return (unsigned)u < RB_UNIT_COUNT ? roofs[u] : RB_ROOF_COUNT;
}

rb_roof rb_roof_derived(rb_unit u, double flops)
{
    rb_roof c = rb_roof_of_unit(u);
    return flops > 0 && c != RB_ROOF_COUNT ? c : RB_ROOF_DRAM;
}

void rb_roofs_unknown(rb_roofs *r)
{
    for (int i = 0; i < RB_ROOF_COUNT; i++) {
        r->value[i] = r->noise[i] = r->measured[i] = NAN;
        r->raised_by[i][0] = '\0';
    }
}

/* A roof's value as a usable divisor: NaN when unknown, zero, negative or infinite. */
static double roof_value(const rb_roofs *roofs, rb_roof r)
{
    double x = (unsigned)r < RB_ROOF_COUNT ? roofs->value[r] : NAN;
    return x > 0 && isfinite(x) ? x : NAN;
}

/* The floor of a compute or bandwidth roof, in seconds; NaN when a roof it needs is unknown. */
static double floor_s_of(double flops, double bytes, rb_unit unit, rb_roof roof,
                         const rb_roofs *roofs, int *memory_bound)
{
    double mem_s = 0.0, compute_s = 0.0;
    if (rb_roof_kind_of(roof) == RB_KIND_COMPUTE) {
        mem_s = bytes > 0 ? bytes / (roof_value(roofs, RB_ROOF_DRAM) * 1e9) : 0.0;
        compute_s = flops > 0 ? flops / (roof_value(roofs, roof) * 1e12) : 0.0;
    } else {
        mem_s = bytes > 0 ? bytes / (roof_value(roofs, roof) * 1e9) : NAN;
        /* A variant declared bandwidth-bound is still bounded by its arithmetic where that roof
         * is known; where it is not, the bandwidth roof alone is its floor. */
        double c = roof_value(roofs, rb_roof_of_unit(unit));
        compute_s = flops > 0 && !isnan(c) ? flops / (c * 1e12) : 0.0;
    }
    *memory_bound = !(compute_s > mem_s);
    return isnan(mem_s) || isnan(compute_s) ? NAN : fmax(mem_s, compute_s);
}

void rb_point_none(rb_point *p)
{
    p->ai = p->gbps = p->tflops = p->floor_ms = p->efficiency = NAN;
    p->memory_bound = 0;
    p->compute_bound = 0;
    p->binding = RB_ROOF_COUNT;
}

/* Which roof binds the floor floor_s_of found (see rb_point.binding). */
static rb_roof binding_of(rb_roof roof, rb_unit unit, int memory_bound)
{
    if (rb_roof_kind_of(roof) == RB_KIND_COMPUTE)
        return memory_bound ? RB_ROOF_DRAM : roof;
    if (rb_roof_kind_of(roof) == RB_KIND_BANDWIDTH && !memory_bound &&
        rb_roof_of_unit(unit) != RB_ROOF_COUNT)
        return rb_roof_of_unit(unit);
    return roof;
}

void rb_roofline_point(double flops, double bytes, double ms, rb_unit unit, rb_roof roof,
                       double rate, const rb_roofs *roofs, rb_point *out)
{
    out->binding = roof;
    double s = ms * 1e-3;
    out->ai = bytes > 0 ? flops / bytes : NAN;
    out->gbps = bytes / s * 1e-9;
    out->tflops = flops / s * 1e-12;
    out->memory_bound = rb_roof_kind_of(roof) == RB_KIND_BANDWIDTH;
    double efficiency = NAN;
    if (rb_roof_kind_of(roof) == RB_KIND_LATENCY)
        efficiency = rate > 0 ? roof_value(roofs, roof) / rate : NAN;
    else if (!isnan(rate) && rb_roof_kind_of(roof) == RB_KIND_BANDWIDTH)
        efficiency = rate > 0 ? rate / roof_value(roofs, roof) : NAN;
    else {
        efficiency = floor_s_of(flops, bytes, unit, roof, roofs, &out->memory_bound) / s;
        if (isfinite(efficiency))
            out->binding = binding_of(roof, unit, out->memory_bound);
    }
    out->compute_bound = 0;
    if (!(s > 0) || !isfinite(efficiency)) {
        out->floor_ms = NAN;
        out->efficiency = NAN;
        return;
    }
    out->floor_ms = efficiency * ms;
    out->efficiency = efficiency;
    out->compute_bound = rb_roof_kind_of(out->binding) == RB_KIND_COMPUTE;
}
