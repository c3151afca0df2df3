/* SPDX-License-Identifier: MIT */
/*
 * The clocks a variant was timed at: a background thread in the child samples the SM
 * clock and NVML's clock-event ("throttle") reasons about every 10 ms while the variant's timed
 * loop runs (harness/runner/clock_sampler.c), and folds each sample in here. No CUDA and no NVML here,
 * so the mapping of NVML's bits, the throttled rule and the JSON are tested on any machine.
 *
 * In the results file, per variant:
 *   "clocks": {"sm_mhz_mean": x, "sm_mhz_min": y, "samples": n, "reasons": ["power_cap", ...]}
 *   "throttled": true | false
 * both absent when no sample was taken (NVML unavailable).
 */
#ifndef RB_CLOCKS_H
#define RB_CLOCKS_H

#include <stddef.h>

#include "json.h"

/* The reasons, by the names the results file uses (one bit each in rb_clocks.reasons). */
typedef enum rb_clock_reason {
    RB_REASON_POWER_CAP,      /* the software power cap: expected under a tensor-core GEMM */
    RB_REASON_THERMAL,        /* a generic thermal slowdown (no NVML bit maps to it today) */
    RB_REASON_HW_SLOWDOWN,    /* hardware slowdown: thermal, power brake or a power supply */
    RB_REASON_SYNC_BOOST,     /* clocks held to those of a sync-boost group */
    RB_REASON_SW_THERMAL,     /* the driver lowered clocks to stay under a temperature */
    RB_REASON_HW_THERMAL,     /* the hardware lowered clocks: too hot */
    RB_REASON_HW_POWER_BRAKE, /* an external power brake (the chassis asked for less) */
    RB_REASON_APP_CLOCKS,     /* application clocks set below the maximum */
    RB_REASON_IDLE,           /* the GPU was idle at the sample */
    RB_REASON_COUNT
} rb_clock_reason;

/* "power_cap", "thermal", ...; "?" out of range. */
const char *rb_clock_reason_name(rb_clock_reason r);
/* 0 with *out, or -1 for a name that is none of them. */
int rb_clock_reason_from_name(const char *name, rb_clock_reason *out);

/* NVML's nvmlClocksEventReasons / nvmlClocksThrottleReasons bits (the same values under both
 * names) as a mask of (1u << rb_clock_reason). Bits without a name here (display clocks,
 * anything newer) are left out: none of them slows a kernel down. */
unsigned rb_clock_reasons_from_nvml(unsigned long long nvml_bits);

/* 1 when the mask holds a reason that makes a time not the GPU's at its clocks (thermal,
 * sw_thermal, hw_thermal, hw_slowdown, hw_power_brake); power_cap alone does not: a
 * tensor-core GEMM on an H100 runs power-capped by design. */
int rb_clock_reasons_throttled(unsigned reasons);

/* The reasons of a mask, comma-separated ("power_cap, hw_thermal"), into buf; "none" when
 * empty. */
void rb_clock_reasons_text(unsigned reasons, char *buf, size_t size);

/* What the sampler saw during one timed loop. samples == 0: nothing (no NVML). */
typedef struct rb_clocks {
    double sm_mhz_sum, sm_mhz_min; /* over the samples whose clock was read */
    double clock_samples;          /* samples with a clock reading */
    double samples;                /* samples taken */
    unsigned reasons;              /* every reason seen active at least once */
} rb_clocks;

void rb_clocks_init(rb_clocks *c);
/* One sample: the SM clock in MHz (NaN when the read failed) and NVML's reason bits
 * (have_reasons 0: the read failed). */
void rb_clocks_add(rb_clocks *c, double sm_mhz, int have_reasons, unsigned long long nvml_bits);
/* Mean SM clock over the samples, NaN with none. */
double rb_clocks_mean_mhz(const rb_clocks *c);

/* Sets "clocks" and "throttled" on the variant object o when c holds samples; leaves o as it
 * is otherwise. 0, or -1 when out of memory. */
int rb_clocks_to_json(const rb_clocks *c, json_value *o);
/* Reads "clocks" of a variant object back into c (c left empty when absent). Unknown reason
 * names are ignored (a newer file). 0, or -1 with the reason in err for a malformed object. */
int rb_clocks_from_json(const json_value *variant, rb_clocks *c, char *err, size_t err_size);

#endif
