/* SPDX-License-Identifier: MIT */
#include "expect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "expect_row.h"
#include "expect_stale.h"
#include "outputs.h"
#include "util.h"

/* Bounds of plausible values: a number beyond them is a typo or a planted file, and would make
 * every verdict against it pass. */
#define RB_EXPECT_MAX_ROOF 1e6  /* GB/s, TFLOP/s or us */
#define RB_EXPECT_MAX_MS 1e9    /* a variant's median */
#define RB_EXPECT_MAX_NOISE 1e3 /* (p90 - p10) / median */
#define RB_EXPECT_MAX_MHZ 1e5
#define RB_EXPECT_MAX_SIZE 9007199254740992.0 /* 2^53: sizes are exact integers */

static double median_of(double *x, int n);

/* ---- validation: every message names the path inside the document ---- */

static int fail_at(char *err, size_t err_size, const char *where, const char *what)
{
    rb_fmt(err, err_size, "%s: %s", where, what);
    return -1;
}

static int expect_type(const json_value *v, json_type t, const char *where, char *err,
                       size_t err_size)
{
    if (v->type == t)
        return 0;
    char what[96];
    rb_fmt(what, sizeof what, "expected %s, got %s",
           t == JSON_OBJECT   ? "an object"
           : t == JSON_NUMBER ? "a number"
                              : json_type_name(t),
           json_type_name(v->type));
    return fail_at(err, err_size, where, what);
}

static int is_roof_key(const char *k)
{
    rb_roof r;
    return rb_roof_from_key(k, &r) == 0;
}

/* One number of a method: required ones present and >= lo; optional ones absent, null (not
 * measured) or positive. */
static int validate_method_number(const json_value *m, const char *key, const char *parent,
                                  int optional, double lo, char *err, size_t err_size)
{
    char where[240];
    rb_fmt(where, sizeof where, "%s.%s", parent, key);
    const json_value *x = json_get(m, key);
    if (!x)
        return optional ? 0 : fail_at(err, err_size, where, "missing");
    if (optional && x->type == JSON_NULL)
        return 0;
    if (expect_type(x, JSON_NUMBER, where, err, err_size))
        return -1;
    if (optional && !(x->number > 0 && x->number <= RB_EXPECT_MAX_ROOF))
        return fail_at(err, err_size, where, "must be positive and plausible (or null)");
    if (!optional && !(x->number >= lo)) {
        char what[64];
        rb_fmt(what, sizeof what, "must be >= %g", lo);
        return fail_at(err, err_size, where, what);
    }
    return 0;
}

/* ceilings.methods: how each ceiling was measured, {"<roof key>": {"method": "...", "size":
 * "...", "samples": N, "noise": x, "sm_clock_mhz": M, "power_w": W}} (the last two optional). */
static int validate_methods(const json_value *o, char *err, size_t err_size)
{
    static const char *const fields[] = {"method", "size", "samples", "noise", "sm_clock_mhz",
                                         "power_w"};
    char where[160], fw[240];
    if (expect_type(o, JSON_OBJECT, "ceilings.methods", err, err_size))
        return -1;
    for (size_t i = 0; i < o->count; i++) {
        const json_value *m = o->items[i];
        rb_fmt(where, sizeof where, "ceilings.methods.%s", o->keys[i]);
        if (!is_roof_key(o->keys[i]))
            return fail_at(err, err_size, where, "unknown roof key");
        if (expect_type(m, JSON_OBJECT, where, err, err_size))
            return -1;
        for (size_t k = 0; k < m->count; k++) {
            int known = 0;
            for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
                known |= strcmp(m->keys[k], fields[f]) == 0;
            rb_fmt(fw, sizeof fw, "%s.%s", where, m->keys[k]);
            if (!known)
                return fail_at(err, err_size, fw,
                               "unknown key (expected method, size, samples, noise, "
                               "sm_clock_mhz, power_w)");
        }
        for (int f = 0; f < 2; f++) {
            const json_value *x = json_get(m, fields[f]);
            rb_fmt(fw, sizeof fw, "%s.%s", where, fields[f]);
            if (!x)
                return fail_at(err, err_size, fw, "missing");
            if (expect_type(x, JSON_STRING, fw, err, err_size))
                return -1;
        }
        if (validate_method_number(m, "samples", where, 0, 1, err, err_size) ||
            validate_method_number(m, "noise", where, 0, 0, err, err_size) ||
            validate_method_number(m, "sm_clock_mhz", where, 1, 0, err, err_size) ||
            validate_method_number(m, "power_w", where, 1, 0, err, err_size))
            return -1;
    }
    return 0;
}

/* peaks or ceilings: roof keys (a positive number, or null when unknown), "source" (a string)
 * and, in ceilings, "methods"; anything else is refused, so a misspelt roof is not silently
 * unknown. */
static int validate_roofs(const json_value *o, const char *name, char *err, size_t err_size)
{
    char where[160];
    int is_ceilings = strcmp(name, "ceilings") == 0;
    if (expect_type(o, JSON_OBJECT, name, err, err_size))
        return -1;
    for (size_t i = 0; i < o->count; i++) {
        const json_value *x = o->items[i];
        rb_fmt(where, sizeof where, "%s.%s", name, o->keys[i]);
        if (is_roof_key(o->keys[i])) {
            if (x->type == JSON_NULL)
                continue;
            if (expect_type(x, JSON_NUMBER, where, err, err_size))
                return -1;
            if (!(x->number > 0))
                return fail_at(err, err_size, where, "must be positive (or null if unknown)");
            if (!(x->number <= RB_EXPECT_MAX_ROOF))
                return fail_at(err, err_size, where,
                               "is not a plausible roof (above 1e6 GB/s, TFLOP/s or us)");
        } else if (strcmp(o->keys[i], "source") == 0) {
            if (expect_type(x, JSON_STRING, where, err, err_size))
                return -1;
        } else if (is_ceilings && strcmp(o->keys[i], "methods") == 0) {
            if (validate_methods(x, err, err_size))
                return -1;
        } else {
            return fail_at(err, err_size, where,
                           is_ceilings ? "unknown key (expected a roof key, source or methods)"
                                       : "unknown key (expected a roof key or source)");
        }
    }
    return 0;
}

/* A measured ceiling more than RB_CEILING_OVER_PEAK above its datasheet peak is not a roof:
 * the measurement hit a cache or the number was mistyped, and every efficiency against it would
 * be understated. (Boost clocks and rounding put a sound ceiling within a few % of the peak.) */
#define RB_CEILING_OVER_PEAK 0.05

static int validate_ceilings_below_peaks(const json_value *ceilings, const json_value *peaks,
                                         char *err, size_t err_size)
{
    for (size_t i = 0; i < ceilings->count; i++) {
        const json_value *c = ceilings->items[i], *pk = json_get(peaks, ceilings->keys[i]);
        if (!is_roof_key(ceilings->keys[i]) || c->type != JSON_NUMBER || !pk ||
            pk->type != JSON_NUMBER || c->number <= pk->number * (1 + RB_CEILING_OVER_PEAK))
            continue;
        char where[160], what[240];
        rb_fmt(where, sizeof where, "ceilings.%s", ceilings->keys[i]);
        rb_fmt(what, sizeof what,
               "%.6g is above the datasheet peak peaks.%s = %.6g by more than %.0f%%: not a "
               "plausible measurement",
               c->number, ceilings->keys[i], pk->number, 100 * RB_CEILING_OVER_PEAK);
        return fail_at(err, err_size, where, what);
    }
    return 0;
}

static int validate_positive(const json_value *o, const char *key, const char *parent,
                             int allow_zero, char *err, size_t err_size)
{
    char where[200];
    rb_fmt(where, sizeof where, "%s.%s", parent, key);
    const json_value *x = json_get(o, key);
    if (!x)
        return fail_at(err, err_size, where, "missing");
    if (expect_type(x, JSON_NUMBER, where, err, err_size))
        return -1;
    if (!(allow_zero ? x->number >= 0 : x->number > 0))
        return fail_at(err, err_size, where, allow_zero ? "must be >= 0" : "must be positive");
    return 0;
}

/* One key of an expected variant: the numbers (median_ms, noise, gbps, tflops; runs and
 * run_spread), run_medians (positive numbers), clocks ({"sm_mhz_mean": MHz}), per_clock (true or
 * false) and library_algo (an object, as the results write it). */
static int validate_variant_key(const char *key, const json_value *x, const char *vw, char *err,
                                size_t err_size)
{
    char kw[280];
    rb_fmt(kw, sizeof kw, "%s.%s", vw, key);
    if (!strcmp(key, "run_medians")) {
        if (expect_type(x, JSON_ARRAY, kw, err, err_size))
            return -1;
        if (x->count < 1 || x->count > RB_EXPECT_MAX_REPEAT)
            return fail_at(err, err_size, kw, "expected 1 to 20 medians");
        for (size_t i = 0; i < x->count; i++)
            if (x->items[i]->type != JSON_NUMBER ||
                !(x->items[i]->number > 0 && x->items[i]->number <= RB_EXPECT_MAX_MS))
                return fail_at(err, err_size, kw, "expected positive numbers of milliseconds");
        return 0;
    }
    if (!strcmp(key, "clocks")) {
        const json_value *m = json_get(x, "sm_mhz_mean");
        if (expect_type(x, JSON_OBJECT, kw, err, err_size))
            return -1;
        if (x->count != 1 || !m ||
            (m->type != JSON_NULL &&
             (m->type != JSON_NUMBER || !(m->number > 0 && m->number <= RB_EXPECT_MAX_MHZ))))
            return fail_at(err, err_size, kw,
                           "expected {\"sm_mhz_mean\": MHz (positive, at most 1e5) or null}");
        return 0;
    }
    if (!strcmp(key, "per_clock"))
        return x->type == JSON_BOOL ? 0 : fail_at(err, err_size, kw, "expected true or false");
    if (!strcmp(key, "library_algo"))
        return expect_type(x, JSON_OBJECT, kw, err, err_size);
    if (strcmp(key, "median_ms") && strcmp(key, "noise") && strcmp(key, "gbps") &&
        strcmp(key, "tflops") && strcmp(key, "runs") && strcmp(key, "run_spread"))
        return fail_at(err, err_size, kw,
                       "unknown key (expected median_ms, noise, gbps, tflops, runs, run_medians, "
                       "run_spread, clocks, per_clock, library_algo)");
    if (x->type != JSON_NUMBER && x->type != JSON_NULL)
        return expect_type(x, JSON_NUMBER, kw, err, err_size);
    if (!strcmp(key, "runs") &&
        !(x->type == JSON_NUMBER && x->number >= 1 && x->number <= RB_EXPECT_MAX_REPEAT &&
          x->number == floor(x->number)))
        return fail_at(err, err_size, kw, "expected a whole number >= 1 (at most 20)");
    if (!strcmp(key, "run_spread") && x->type == JSON_NUMBER && !(x->number >= 0))
        return fail_at(err, err_size, kw, "must be >= 0 (or null)");
    if (!strcmp(key, "median_ms") && !(x->number <= RB_EXPECT_MAX_MS))
        return fail_at(err, err_size, kw, "is not a plausible time (above 1e9 ms)");
    if (x->type == JSON_NUMBER && !strcmp(key, "noise") && !(x->number <= RB_EXPECT_MAX_NOISE))
        return fail_at(err, err_size, kw, "is not a plausible noise (above 1000)");
    /* (NaN: a rate never measured, written as null) */
    if (x->type == JSON_NUMBER && (!strcmp(key, "gbps") || !strcmp(key, "tflops")) &&
        !isnan(x->number) && !(x->number >= 0 && x->number <= RB_EXPECT_MAX_ROOF))
        return fail_at(err, err_size, kw, "must be >= 0 and plausible (or null)");
    return 0;
}

/* The recorded runs of a variant agree with each other (what the recording writes): runs is the
 * number of run_medians, median_ms their median, run_spread (max - min) / median of them (of the
 * cycles, time x clock, when per_clock: then at most max / min - 1 of the times). A spread that
 * does not come from the medians would set any threshold: 1e300 switched regression detection
 * off. */
static int validate_runs(const json_value *v, const char *vw, char *err, size_t err_size)
{
    const json_value *meds = json_get(v, "run_medians"), *runs = json_get(v, "runs");
    const json_value *spread = json_get(v, "run_spread");
    char where[300];
    int n = runs && runs->type == JSON_NUMBER ? (int)runs->number : 1;
    rb_fmt(where, sizeof where, "%s.run_medians", vw);
    if (meds && (int)meds->count != n)
        return fail_at(err, err_size, where, "does not hold one median for each of its runs");
    rb_fmt(where, sizeof where, "%s.run_spread", vw);
    if (spread && spread->type == JSON_NUMBER && (!meds || meds->count < 2))
        return fail_at(err, err_size, where, "needs the run_medians of 2 or more runs");
    if (!meds)
        return 0;
    double x[RB_EXPECT_MAX_REPEAT], lo = INFINITY, hi = 0;
    for (size_t i = 0; i < meds->count; i++) {
        x[i] = meds->items[i]->number;
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    double mid = median_of(x, (int)meds->count), med = json_number_at(v, "median_ms");
    rb_fmt(where, sizeof where, "%s.median_ms", vw);
    if (!(fabs(med - mid) <= 1e-9 * mid))
        return fail_at(err, err_size, where, "is not the median of run_medians");
    if (!spread || spread->type != JSON_NUMBER)
        return 0;
    double s = spread->number, of_times = (hi - lo) / mid;
    int ok = json_true_at(v, "per_clock") ? s <= hi / lo - 1 + 1e-9
                                          : fabs(s - of_times) <= 1e-9 * (1 + of_times);
    rb_fmt(where, sizeof where, "%s.run_spread", vw);
    return ok ? 0
              : fail_at(err, err_size, where,
                        "does not agree with run_medians ((max - min) / median of them)");
}

/* provenance, or a row's recorded: an object; of its keys, those the checker and the reader of
 * a model's file rely on are checked: nvcc and arch (what the build was, model/expect_check.h),
 * machines and runs (whole numbers, 1 to 1e6) and gpus (the GPUs' UUIDs, strings). */
static int validate_recorded(const json_value *r, const char *where, char *err, size_t err_size)
{
    char kw[300];
    if (expect_type(r, JSON_OBJECT, where, err, err_size))
        return -1;
    for (size_t i = 0; i < r->count; i++) {
        const char *key = r->keys[i];
        const json_value *x = r->items[i];
        rb_fmt(kw, sizeof kw, "%s.%s", where, key);
        if ((!strcmp(key, "nvcc") || !strcmp(key, "arch")) && x->type != JSON_STRING)
            return fail_at(err, err_size, kw, "expected a string");
        if ((!strcmp(key, "machines") || !strcmp(key, "runs")) &&
            !(x->type == JSON_NUMBER && x->number >= 1 && x->number <= 1e6 &&
              x->number == floor(x->number)))
            return fail_at(err, err_size, kw, "expected a whole number >= 1");
        if (!strcmp(key, "gpus") && expect_type(x, JSON_ARRAY, kw, err, err_size))
            return -1;
        for (size_t k = 0; !strcmp(key, "gpus") && k < x->count; k++)
            if (x->items[k]->type != JSON_STRING)
                return fail_at(err, err_size, kw, "expected the GPUs' UUIDs (strings)");
    }
    return 0;
}

/* A row's skipped: {"<variant>": "why it was not timed where the row was recorded"}. */
static int validate_skipped(const json_value *s, const char *where, char *err, size_t err_size)
{
    if (expect_type(s, JSON_OBJECT, where, err, err_size))
        return -1;
    for (size_t i = 0; i < s->count; i++)
        if (s->items[i]->type != JSON_STRING) {
            char kw[300];
            rb_fmt(kw, sizeof kw, "%s.%s", where, s->keys[i]);
            return fail_at(err, err_size, kw, "expected a string (why it was skipped)");
        }
    return 0;
}

static int validate_pair(const json_value *p, const char *name, char *err, size_t err_size)
{
    char where[160], vwhere[200];
    rb_fmt(where, sizeof where, "pairs.%s", name);
    if (expect_type(p, JSON_OBJECT, where, err, err_size))
        return -1;
    for (size_t i = 0; i < p->count; i++) {
        const char *key = p->keys[i];
        rb_fmt(vwhere, sizeof vwhere, "%s.%s", where, key);
        if (strcmp(key, "size") && strcmp(key, "shape") && strcmp(key, "recorded") &&
            strcmp(key, "variants") && strcmp(key, "platform") && strcmp(key, "kernels") &&
            strcmp(key, "wall_s") && strcmp(key, "stale") && strcmp(key, "skipped"))
            return fail_at(err, err_size, vwhere,
                           "unknown key (expected size, shape, recorded, variants, platform, "
                           "kernels, wall_s, skipped, stale)");
        if (!strcmp(key, "stale") &&
            rb_expect_stale_validate(p->items[i], vwhere, err, err_size) != 0)
            return -1;
        if (!strcmp(key, "skipped") && validate_skipped(p->items[i], vwhere, err, err_size))
            return -1;
        /* what the expectations were recorded with, for the attribution of a verdict */
        if (!strcmp(key, "platform") &&
            expect_type(p->items[i], JSON_OBJECT, vwhere, err, err_size))
            return -1;
        if (!strcmp(key, "kernels") && expect_type(p->items[i], JSON_ARRAY, vwhere, err, err_size))
            return -1;
        for (size_t k = 0; !strcmp(key, "kernels") && k < p->items[i]->count; k++)
            if (p->items[i]->items[k]->type != JSON_OBJECT)
                return fail_at(err, err_size, vwhere, "expected kernel records (objects)");
    }
    const json_value *recorded = json_get(p, "recorded");
    rb_fmt(vwhere, sizeof vwhere, "%s.recorded", where);
    if (recorded && validate_recorded(recorded, vwhere, err, err_size))
        return -1;
    if (validate_positive(p, "size", where, 0, err, err_size) ||
        (json_get(p, "wall_s") && validate_positive(p, "wall_s", where, 0, err, err_size)))
        return -1;
    double size = json_number_at(p, "size");
    rb_fmt(vwhere, sizeof vwhere, "%s.size", where);
    if (!(size >= 1 && size <= RB_EXPECT_MAX_SIZE && size == floor(size)))
        return fail_at(err, err_size, vwhere, "expected a whole number of elements, 1 to 2^53");
    const json_value *shape = json_get(p, "shape");
    rb_fmt(vwhere, sizeof vwhere, "%s.shape", where);
    if (shape && expect_type(shape, JSON_STRING, vwhere, err, err_size))
        return -1;
    rb_size rc;
    char why[160];
    if (shape && (rb_parse_size(shape->string, &rc, why, sizeof why) != 0 || rc.rows == 0 ||
                  (double)rc.n != size))
        return fail_at(err, err_size, vwhere, "expected ROWSxCOLS whose product is the size");
    const json_value *vs = json_get(p, "variants");
    rb_fmt(vwhere, sizeof vwhere, "%s.variants", where);
    if (!vs)
        return fail_at(err, err_size, vwhere, "missing");
    if (expect_type(vs, JSON_OBJECT, vwhere, err, err_size))
        return -1;
    for (size_t i = 0; i < vs->count; i++) {
        const json_value *v = vs->items[i];
        char vw[240];
        rb_fmt(vw, sizeof vw, "%s.%s", vwhere, vs->keys[i]);
        if (expect_type(v, JSON_OBJECT, vw, err, err_size) ||
            validate_positive(v, "median_ms", vw, 0, err, err_size) ||
            validate_positive(v, "noise", vw, 1, err, err_size))
            return -1;
        for (size_t k = 0; k < v->count; k++)
            if (validate_variant_key(v->keys[k], v->items[k], vw, err, err_size))
                return -1;
        if (validate_runs(v, vw, err, err_size))
            return -1;
    }
    return 0;
}

int rb_expect_validate(const json_value *doc, char *err, size_t err_size)
{
    static const char *const known[] = {"schema",   "hardware",   "peaks",
                                        "ceilings", "provenance", "pairs"};
    if (expect_type(doc, JSON_OBJECT, "top level", err, err_size))
        return -1;
    for (size_t i = 0; i < doc->count; i++) {
        int ok = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            ok |= strcmp(doc->keys[i], known[k]) == 0;
        if (!ok)
            return fail_at(err, err_size, doc->keys[i],
                           "unknown key (expected schema, hardware, peaks, ceilings, provenance, "
                           "pairs)");
    }
    const json_value *schema = json_get(doc, "schema");
    if (!schema)
        return fail_at(err, err_size, "schema", "missing");
    if (expect_type(schema, JSON_NUMBER, "schema", err, err_size))
        return -1;
    if (schema->number != 1)
        return fail_at(err, err_size, "schema", "unsupported version (this build reads 1)");
    const char *objects[] = {"hardware", "peaks", "ceilings", "pairs"};
    for (size_t k = 0; k < 4; k++) {
        const json_value *x = json_get(doc, objects[k]);
        if (!x)
            return fail_at(err, err_size, objects[k], "missing");
        if (expect_type(x, JSON_OBJECT, objects[k], err, err_size))
            return -1;
    }
    const json_value *hw = json_get(doc, "hardware"), *name = json_get(hw, "name");
    if (!name)
        return fail_at(err, err_size, "hardware.name", "missing");
    if (expect_type(name, JSON_STRING, "hardware.name", err, err_size))
        return -1;
    const json_value *prov = json_get(doc, "provenance");
    if (prov && validate_recorded(prov, "provenance", err, err_size))
        return -1;
    if (validate_roofs(json_get(doc, "peaks"), "peaks", err, err_size) ||
        validate_roofs(json_get(doc, "ceilings"), "ceilings", err, err_size) ||
        validate_ceilings_below_peaks(json_get(doc, "ceilings"), json_get(doc, "peaks"), err,
                                      err_size))
        return -1;
    const json_value *pairs = json_get(doc, "pairs");
    for (size_t i = 0; i < pairs->count; i++)
        if (validate_pair(pairs->items[i], pairs->keys[i], err, err_size))
            return -1;
    return 0;
}

void rb_expect_roofs(const json_value *o, rb_roofs *out)
{
    rb_roofs_unknown(out);
    for (int r = 0; r < RB_ROOF_COUNT; r++) {
        const json_value *x = json_get(o, rb_roof_key((rb_roof)r));
        if (x && x->type == JSON_NUMBER)
            out->value[r] = x->number;
        /* a measured roof's noise, which a point above it may be within */
        out->noise[r] =
            json_number_at(json_get(json_get(o, "methods"), rb_roof_key((rb_roof)r)), "noise");
    }
}

int rb_expect_load(const char *path, rb_expect *e, char *err, size_t err_size)
{
    char msg[512];
    memset(e, 0, sizeof *e);
    json_value *doc = json_parse_file(path, err, err_size);
    if (!doc)
        return -1;
    if (rb_expect_validate(doc, msg, sizeof msg) != 0) {
        rb_fmt(err, err_size, "%s: %s", path, msg);
        json_free(doc);
        return -1;
    }
    e->doc = doc;
    rb_expect_roofs(json_get(doc, "peaks"), &e->peaks);
    rb_expect_roofs(json_get(doc, "ceilings"), &e->ceilings);
    return 0;
}

int rb_expect_same_device(const json_value *doc, const char *device_name, char *err,
                          size_t err_size)
{
    const json_value *name = json_get(json_get(doc, "hardware"), "name");
    const char *recorded = name && name->type == JSON_STRING ? name->string : "";
    char a[256], b[256];
    rb_hardware_key(recorded, a, sizeof a);
    rb_hardware_key(device_name, b, sizeof b);
    if (strcmp(a, b) == 0)
        return 0;
    rb_fmt(err, err_size,
           "recorded on %s, but this GPU is %s: its times and roofs are not this GPU's (pass "
           "--expect-any-device to use it anyway, or --expect none)",
           recorded[0] ? recorded : "an unnamed GPU", device_name);
    return -1;
}

int rb_expect_lock_and_load(const char *path, int *lock_fd, json_value **doc, char *err,
                            size_t err_size)
{
    rb_expect e;
    struct stat st;
    *doc = NULL;
    *lock_fd = rb_lock_beside(path, err, err_size);
    if (*lock_fd < 0)
        return -1;
    if (stat(path, &st) != 0)
        return 0; /* a new file */
    if (rb_expect_load(path, &e, err, err_size) != 0) {
        rb_unlock(*lock_fd);
        *lock_fd = -1;
        return -1;
    }
    *doc = e.doc;
    return 0;
}

void rb_expect_free(rb_expect *e)
{
    json_free(e->doc);
    e->doc = NULL;
}

/* "RxC" for a two-dimensional pair, "" for a one-dimensional one. */
static void shape_text(const rb_pair_result *p, char *buf, size_t size)
{
    if (p->rows > 1)
        rb_fmt(buf, size, "%llux%llu", (unsigned long long)p->rows, (unsigned long long)p->cols);
    else
        rb_fmt(buf, size, "%s", "");
}

/* ---- verdicts ---- */

double rb_expect_threshold(double expected_noise, double measured_noise)
{
    double noise = fmax(isnan(expected_noise) ? 0 : expected_noise,
                        isnan(measured_noise) ? 0 : measured_noise);
    return fmax(0.03, 3.0 * noise);
}

rb_verdict rb_expect_judge(double expected_ms, double expected_noise, double ms, double noise)
{
    double thr = rb_expect_threshold(expected_noise, noise);
    if (!(ms <= expected_ms * (1.0 + thr)))
        return RB_VERDICT_REGRESSED;
    if (ms < expected_ms * (1.0 - thr))
        return RB_VERDICT_IMPROVED;
    return RB_VERDICT_PASS;
}

void rb_expected_read(const json_value *x, rb_expected *e)
{
    const json_value *runs = json_get(x, "runs");
    e->median_ms = json_number_at(x, "median_ms");
    e->noise = json_number_at(x, "noise");
    e->runs = runs && runs->type == JSON_NUMBER ? (int)runs->number : 1;
    e->run_spread = json_number_at(x, "run_spread");
    e->sm_mhz = json_number_at(json_get(x, "clocks"), "sm_mhz_mean");
    e->per_clock = json_true_at(x, "per_clock");
    e->time_spread = e->per_clock ? NAN : e->run_spread;
    const json_value *meds = json_get(x, "run_medians");
    if (e->per_clock && meds && meds->type == JSON_ARRAY && meds->count >= 2 &&
        e->median_ms > 0) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < meds->count; i++) {
            lo = fmin(lo, meds->items[i]->number);
            hi = fmax(hi, meds->items[i]->number);
        }
        e->time_spread = (hi - lo) / e->median_ms; /* the validated file's median of them */
    }
}

void rb_expected_each(const json_value *doc, rb_expected_each_fn each, void *ctx)
{
    const json_value *pairs = json_get(doc, "pairs");
    for (size_t i = 0; pairs && pairs->type == JSON_OBJECT && i < pairs->count; i++) {
        const json_value *vs = json_get(pairs->items[i], "variants");
        for (size_t k = 0; vs && vs->type == JSON_OBJECT && k < vs->count; k++) {
            rb_expected e;
            rb_expected_read(vs->items[k], &e);
            each(pairs->keys[i], vs->keys[k], &e, ctx);
        }
    }
}

double rb_expect_run_threshold(const rb_expected *e, const rb_stats *now)
{
    if (e->runs < RB_EXPECT_MIN_RUNS || !(e->run_spread >= 0))
        return rb_expect_threshold(e->noise, now->noise);
    /* Half the width of this run's 95% interval of its median: a run that knows its median
     * worse than the recorded runs spread cannot judge finer than that. */
    double ci = now->median > 0 ? (now->ci_hi - now->ci_lo) / (2 * now->median) : NAN;
    double thr = fmax(RB_EXPECT_MIN_THRESHOLD, RB_EXPECT_SPREAD_FACTOR * e->run_spread);
    return isfinite(ci) ? fmax(thr, ci) : thr;
}

static rb_verdict verdict_of(double ratio, double threshold)
{
    if (!(ratio <= 1.0 + threshold))
        return RB_VERDICT_REGRESSED;
    if (ratio < 1.0 - threshold)
        return RB_VERDICT_IMPROVED;
    return RB_VERDICT_PASS;
}

/* The mean SM clock of c when it rests on enough readings to judge by, else NaN. */
static double known_mhz(const rb_clocks *c)
{
    return c->clock_samples >= RB_EXPECT_MIN_CLOCK_READINGS ? rb_clocks_mean_mhz(c) : NAN;
}

rb_verdict rb_expect_judge_run(const rb_expected *e, const rb_variant_result *v, double *threshold,
                               double *ratio, int *per_clock)
{
    double mhz = known_mhz(&v->clocks);
    int clock_known = e->sm_mhz > 0 && mhz > 0;
    double time_ratio = v->time_ms.median / e->median_ms;
    if (rb_timing_sustained(v->timing)) { /* its time alone (expect.h says why) */
        rb_expected by_time = *e;
        by_time.run_spread = e->time_spread;
        *per_clock = 0;
        *ratio = time_ratio;
        *threshold = rb_expect_run_threshold(&by_time, &v->time_ms);
        return verdict_of(time_ratio, *threshold);
    }
    double clock_ratio = clock_known ? time_ratio * mhz / e->sm_mhz : NAN;
    *per_clock = e->per_clock && clock_known;
    *ratio = *per_clock ? clock_ratio : time_ratio;
    *threshold = rb_expect_run_threshold(e, &v->time_ms);
    rb_verdict verdict = verdict_of(*ratio, *threshold);
    /* Under the power cap a change must show in both (rb_expect_judge_run in expect.h). */
    int capped = (v->clocks.reasons & 1u << RB_REASON_POWER_CAP) != 0;
    if (verdict != RB_VERDICT_PASS && capped && clock_known &&
        verdict_of(*per_clock ? time_ratio : clock_ratio, *threshold) != verdict)
        verdict = RB_VERDICT_PASS;
    return verdict;
}

/* A row timed while another process used the GPU: its time is not this code's, so no pass,
 * improved or regressed; what it would have been is said in its evidence. */
static void judge_contended(rb_variant_result *v)
{
    char who[300], would[120] = "no expectation to hold it against";
    rb_contention_text(&v->contended_by, who, sizeof who);
    if (v->verdict == RB_VERDICT_PASS || v->verdict == RB_VERDICT_IMPROVED ||
        v->verdict == RB_VERDICT_REGRESSED || v->verdict == RB_VERDICT_STALE)
        rb_fmt(would, sizeof would, "%+.1f%% against the expectation, which would read %s",
               100 * (v->judged_ratio - 1), rb_verdict_name(v->verdict));
    v->verdict = RB_VERDICT_CONTENDED;
    rb_fmt(v->cause, sizeof v->cause, "contended");
    rb_fmt(v->evidence, sizeof v->evidence,
           "%s on the GPU while it was timed: not a time of this code (%s); measure again on an "
           "idle GPU",
           who, would);
}

/* v against its row's entry ep (NULL: none at this size): skipped, invalid, new, or judged; a
 * variant of a row marked stale is measured and its ratio said, never judged (expect_stale.h). */
static void judge_variant(const json_value *ep, const char *row, rb_variant_result *v)
{
    const json_value *expected_variants = json_get(ep, "variants");
    if (v->skipped) {
        v->verdict = RB_VERDICT_SKIPPED;
        return;
    }
    if (!v->valid) {
        v->verdict = RB_VERDICT_INVALID;
        return;
    }
    const json_value *x = json_get(expected_variants, v->name);
    if (!x) {
        v->verdict = RB_VERDICT_NEW;
    } else {
        rb_expected e;
        rb_expected_read(x, &e);
        v->expected_ms = e.median_ms;
        v->verdict = rb_expect_judge_run(&e, v, &v->threshold, &v->judged_ratio, &v->per_clock);
        if (json_get(ep, "stale")) {
            v->verdict = RB_VERDICT_STALE;
            rb_expect_row r;
            if (rb_expect_row_of(ep, row, &r) == 0)
                rb_expect_stale_text(&r, v->judged_ratio, v->evidence, sizeof v->evidence);
            rb_expect_row_free(&r);
        }
    }
    if (v->timed && rb_variant_contended(v))
        judge_contended(v);
}

int rb_expect_apply(const rb_expect *e, rb_pair_result *pairs, int n)
{
    for (int i = 0; i < n; i++) {
        rb_pair_result *p = &pairs[i];
        const json_value *ep = e ? json_get(json_get(e->doc, "pairs"), p->name) : NULL;
        const json_value *size = json_get(ep, "size"), *shape = json_get(ep, "shape");
        char mine[64];
        shape_text(p, mine, sizeof mine);
        /* Expectations recorded at another size or shape say nothing about this run. */
        if (ep && (!size || size->number != (double)p->size ||
                   strcmp(shape ? shape->string : "", mine) != 0))
            ep = NULL;
        const json_value *ev = json_get(ep, "variants");
        for (int k = 0; k < p->n_variants; k++) {
            rb_variant_result *v = &p->v[k];
            if (p->status == RB_PAIR_SKIPPED)
                v->verdict = RB_VERDICT_SKIPPED;
            else
                judge_variant(ep, p->name, v);
        }
        for (size_t k = 0; ev && k < ev->count && p->n_variants < RB_MAX_VARIANTS; k++) {
            int found = 0;
            for (int j = 0; j < p->n_variants; j++)
                found |= strcmp(p->v[j].name, ev->keys[k]) == 0;
            if (found || p->status == RB_PAIR_SKIPPED)
                continue;
            rb_variant_result *m = &p->v[p->n_variants++];
            rb_variant_result_init(m, ev->keys[k], RB_ROLE_STEP, RB_UNIT_NONE, NAN);
            m->expected_ms = json_get(ev->items[k], "median_ms")->number;
            m->verdict = RB_VERDICT_MISSING;
            rb_fmt(m->note, sizeof m->note, "%s", "expected but not produced by this run");
        }
    }
    return rb_expect_failing(pairs, n, 0, 0);
}

int rb_expect_failing(const rb_pair_result *pairs, int n, int gate_all, int fail_on_platform)
{
    int failing = 0;
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        failing += p->status == RB_PAIR_FAILED;
        for (int k = 0; k < p->n_variants; k++) {
            const rb_variant_result *v = &p->v[k];
            int informational = v->host_bound_why[0] && !gate_all;
            /* a wrong result is never informational: only a time the host sets is; a time
             * taken on a shared GPU is no time to pass (a CI gate must not) */
            failing += v->verdict == RB_VERDICT_INVALID || v->verdict == RB_VERDICT_CONTENDED ||
                       (v->verdict == RB_VERDICT_REGRESSED && !informational &&
                        (fail_on_platform || !v->machine_explained));
        }
    }
    return failing;
}

/* Is the file's row group `name` one of run[0..n_run)? Every group is when run is NULL. */
static int in_run(const char *name, const rb_pair_result *run, int n_run)
{
    if (!run)
        return 1;
    for (int i = 0; i < n_run; i++)
        if (!strcmp(run[i].name, name))
            return 1;
    return 0;
}

void rb_expect_print_thresholds(FILE *f, const json_value *doc, const rb_pair_result *run,
                                int n_run)
{
    const json_value *pairs = json_get(doc, "pairs");
    int n = 0, blind = 0, others = 0;
    fprintf(f, "%-40s %5s %10s %10s  %-10s  %s\n", "pair/variant", "runs", "run spread",
            "threshold", "judged on", "a 10% slowdown");
    for (size_t i = 0; pairs && pairs->type == JSON_OBJECT && i < pairs->count; i++) {
        const json_value *vs = json_get(pairs->items[i], "variants");
        if (!in_run(pairs->keys[i], run, n_run)) {
            others += vs && vs->type == JSON_OBJECT ? (int)vs->count : 0;
            continue;
        }
        for (size_t k = 0; vs && vs->type == JSON_OBJECT && k < vs->count; k++) {
            rb_expected e;
            rb_stats none = {.median = NAN, .ci_lo = NAN, .ci_hi = NAN, .noise = NAN};
            rb_expected_read(vs->items[k], &e);
            double thr = rb_expect_run_threshold(&e, &none);
            char name[160], spread[32];
            rb_fmt(name, sizeof name, "%s/%s", pairs->keys[i], vs->keys[k]);
            if (isfinite(e.run_spread))
                rb_fmt(spread, sizeof spread, "%.2f%%", 100 * e.run_spread);
            else
                rb_fmt(spread, sizeof spread, "-");
            int caught = thr < 0.10;
            fprintf(f, "%-40s %5d %10s %9.2f%%  %-10s  %s\n", name, e.runs, spread, 100 * thr,
                    e.per_clock ? "time x clk" : "time", caught ? "regressed" : "NOT SEEN");
            n++;
            blind += !caught;
        }
    }
    fprintf(f,
            "%d variant(s): a 10%% slowdown is regressed in %d, not seen in %d (threshold = "
            "max(3%%, 2 x run spread) with %d or more runs, else max(3%%, 3 x noise); a run adds "
            "half its own 95%% interval of the median when wider)\n",
            n, n - blind, blind, RB_EXPECT_MIN_RUNS);
    if (others)
        fprintf(f,
                "%d other variant(s) of the file, of row groups this run did not take, are left "
                "as they were recorded\n",
                others);
}

double rb_expect_wall_s(const rb_expect *e, const char *group)
{
    double s = json_number_at(json_get(json_get(e->doc, "pairs"), group), "wall_s");
    return s > 0 ? s : NAN;
}

/* ---- recording ---- */

/* The processes of one run that were not its own: at a pair's start or while a row was timed. */
static void run_contention(const rb_pair_result *pairs, int n, rb_contention *all)
{
    for (int i = 0; i < n; i++) {
        rb_contention_merge(all, &pairs[i].contended_at_start);
        for (int k = 0; k < pairs[i].n_variants; k++)
            rb_contention_merge(all, &pairs[i].v[k].contended_by);
    }
}

int rb_expect_contended(const rb_pair_result *pairs, int n, const rb_pair_result *const *earlier,
                        int n_earlier, char *who, size_t who_size)
{
    rb_contention all;
    rb_contention_init(&all);
    run_contention(pairs, n, &all);
    for (int r = 0; r < n_earlier; r++)
        run_contention(earlier[r], n, &all);
    rb_contention_text(&all, who, who_size);
    return rb_contention_any(&all);
}

int rb_expect_dropped(const rb_variant_result *v)
{
    return v->verdict == RB_VERDICT_MISSING || v->skipped;
}

/* The runs of variant k of pairs[i]: this run's and each earlier run's where that run timed it
 * (valid, same pair and size). ms[] their medians, x[] what their verdict will judge (ms, or ms x
 * mean SM clock when per_clock), mhz[] their mean SM clocks (NaN when unknown). Returns the count.
 */
static int variant_runs(const rb_pair_result *pairs, int i, int k,
                        const rb_pair_result *const *earlier, int n_earlier, int *per_clock,
                        double *ms, double *x, double *mhz)
{
    const rb_variant_result *v = &pairs[i].v[k];
    const rb_variant_result *runs[RB_EXPECT_MAX_REPEAT];
    int n = 0;
    for (int r = 0; r < n_earlier && n < RB_EXPECT_MAX_REPEAT - 1; r++) {
        const rb_pair_result *q = &earlier[r][i];
        if (q->status != RB_PAIR_OK || strcmp(q->name, pairs[i].name) || q->size != pairs[i].size)
            continue;
        for (int j = 0; j < q->n_variants; j++)
            if (!strcmp(q->v[j].name, v->name) && q->v[j].valid && q->v[j].timed)
                runs[n++] = &q->v[j];
    }
    runs[n++] = v;
    /* At equal clock: a variant on a compute roof that some run timed under the power cap, when
     * every run knows its clock, and when its cycles (time x mean SM clock) repeat better than
     * its time does. On the H100 they did not always: an interleaved cuBLASLt GEMM's time
     * repeated to 0.9% over three runs while its cycles spread 10%, when the loop's readings
     * were shared by all its variants (each variant now has the readings taken during its own
     * samples, harness/runner/clock_sampler.h, but a short one may get only a few), so the choice is
     * the data's. */
    int capped = 0, clocks = 1;
    for (int r = 0; r < n; r++) {
        mhz[r] = known_mhz(&runs[r]->clocks);
        capped |= (runs[r]->clocks.reasons & 1u << RB_REASON_POWER_CAP) != 0;
        clocks &= mhz[r] > 0;
    }
    double tmin = INFINITY, tmax = -INFINITY, cmin = INFINITY, cmax = -INFINITY;
    for (int r = 0; r < n; r++) {
        ms[r] = runs[r]->time_ms.median;
        tmin = fmin(tmin, ms[r]);
        tmax = fmax(tmax, ms[r]);
        cmin = fmin(cmin, ms[r] * mhz[r]);
        cmax = fmax(cmax, ms[r] * mhz[r]);
    }
    *per_clock = v->unit != RB_UNIT_NONE && capped && clocks && n >= 2 && cmax / cmin < tmax / tmin &&
                 !rb_timing_sustained(v->timing); /* judged on time alone */
    for (int r = 0; r < n; r++)
        x[r] = *per_clock ? ms[r] * mhz[r] : ms[r];
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of x[0..n) (n >= 1), which it sorts. */
static double median_of(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* One variant's expectation: the median of its runs' medians, the last run's noise, and what its
 * threshold and attribution need (rb_expect_run_threshold; runcmp's code and clock evidence). */
static json_value *variant_entry(const rb_pair_result *pairs, int i, int k,
                                 const rb_pair_result *const *earlier, int n_earlier)
{
    const rb_pair_result *p = &pairs[i];
    const rb_variant_result *v = &p->v[k];
    double ms[RB_EXPECT_MAX_REPEAT], x[RB_EXPECT_MAX_REPEAT], mhz[RB_EXPECT_MAX_REPEAT];
    int per_clock;
    int n = variant_runs(pairs, i, k, earlier, n_earlier, &per_clock, ms, x, mhz);
    json_value *o = json_new_object(), *med = json_new_array(), *clk = json_new_object();
    int oom = !o || !med || !clk;
    for (int r = 0; !oom && r < n; r++)
        oom |= json_array_push(med, json_new_number(ms[r]));
    int known = 0;
    for (int r = 0; r < n; r++)
        if (mhz[r] > 0)
            mhz[known++] = mhz[r];
    double spread = NAN;
    if (n >= 2) {
        double mid = median_of(x, n);
        spread = (x[n - 1] - x[0]) / mid;
    }
    oom = oom || json_set_number(o, "median_ms", median_of(ms, n)) ||
          json_set_number(o, "noise", v->time_ms.noise) || json_set_number(o, "runs", n);
    if (oom) {
        json_free(o);
        json_free(med);
        json_free(clk);
        return NULL;
    }
    oom |= json_object_set(o, "run_medians", med); /* takes med, also when it fails */
    oom |= isfinite(spread) && json_set_number(o, "run_spread", spread);
    if (known && !oom && !json_set_number(clk, "sm_mhz_mean", median_of(mhz, known)))
        oom |= json_object_set(o, "clocks", clk);
    else
        json_free(clk);
    oom |= per_clock && json_set_bool(o, "per_clock", 1);
    if (v->library_algo.present && !oom)
        oom |= json_object_set(o, "library_algo", rb_library_algo_to_json(&v->library_algo));
    oom |= p->bytes > 0 && json_set_number(o, "gbps", v->vs_ceiling.gbps);
    oom |= p->flops > 0 && json_set_number(o, "tflops", v->vs_ceiling.tflops);
    if (oom) {
        json_free(o);
        return NULL;
    }
    return o;
}

/* The wall times (the child, start to end) of pair i in this run and each earlier one. */
static int pair_walls(const rb_pair_result *pairs, int i, const rb_pair_result *const *earlier,
                      int n_earlier, double *wall)
{
    int n = 0;
    for (int r = 0; r < n_earlier && n < RB_EXPECT_MAX_REPEAT - 1; r++)
        if (earlier[r][i].wall_s > 0 && !strcmp(earlier[r][i].name, pairs[i].name))
            wall[n++] = earlier[r][i].wall_s;
    if (pairs[i].wall_s > 0)
        wall[n++] = pairs[i].wall_s;
    return n;
}

/* The variants of p skipped where it was recorded, with why ("skipped": {variant: note}), so
 * that the checker of committed files (expect_check.h) can tell a variant skipped there from
 * one added since. Nothing when none was. 0, or -1 when out of memory. */
static int skipped_entry(const rb_pair_result *p, json_value *entry)
{
    json_value *sk = NULL;
    for (int k = 0; k < p->n_variants; k++) {
        if (!p->v[k].skipped)
            continue;
        if (!sk && (!(sk = json_new_object()) || json_object_set(entry, "skipped", sk)))
            return -1;
        if (json_set_string(sk, p->v[k].name, p->v[k].note[0] ? p->v[k].note : "skipped"))
            return -1;
    }
    return 0;
}

/* One pair's expectations, with the provenance of the run that recorded them (a filtered
 * update leaves the other pairs as an earlier run recorded them), the platform reference that
 * run measured and the kernels it timed (their registers, memory and SASS fingerprints). */
static json_value *pair_entry(const rb_pair_result *pairs, int i,
                              const rb_pair_result *const *earlier, int n_earlier,
                              const json_value *provenance, const json_value *platform)
{
    const rb_pair_result *p = &pairs[i];
    json_value *entry = json_new_object(), *vs = json_new_object(), *ks = json_new_array();
    char shape[64];
    shape_text(p, shape, sizeof shape);
    int oom = !entry || !vs || !ks;
    double wall[RB_EXPECT_MAX_REPEAT];
    int walls = pair_walls(pairs, i, earlier, n_earlier, wall);
    oom = oom || json_set_number(entry, "size", (double)p->size) ||
          (shape[0] && json_set_string(entry, "shape", shape)) ||
          (walls > 0 && json_set_number(entry, "wall_s", median_of(wall, walls)));
    if (oom) {
        json_free(entry);
        json_free(vs);
        json_free(ks);
        return NULL;
    }
    /* each set takes its value, also when it fails */
    oom |= provenance && json_object_set(entry, "recorded", json_clone(provenance));
    oom |= platform && json_object_set(entry, "platform", json_clone(platform));
    for (int j = 0; j < p->n_kernels && !oom; j++)
        oom |= json_array_push(ks, rb_kernel_to_json(&p->kernels[j]));
    if (!oom && p->n_kernels)
        oom |= json_object_set(entry, "kernels", ks);
    else
        json_free(ks);
    oom |= json_object_set(entry, "variants", vs);
    for (int k = 0; k < p->n_variants && !oom; k++)
        if (!rb_expect_dropped(&p->v[k]))
            oom |=
                json_object_set(vs, p->v[k].name, variant_entry(pairs, i, k, earlier, n_earlier));
    oom = oom || skipped_entry(p, entry);
    if (oom) {
        json_free(entry);
        return NULL;
    }
    return entry;
}

int rb_expect_update(json_value **doc, const rb_pair_result *pairs, int n, json_value *hardware,
                     json_value *peaks, json_value *provenance, char *err, size_t err_size)
{
    return rb_expect_update_runs(doc, pairs, n, NULL, 0, NULL, hardware, peaks, provenance, err,
                                 err_size);
}

int rb_expect_update_runs(json_value **doc, const rb_pair_result *pairs, int n,
                          const rb_pair_result *const *earlier, int n_earlier,
                          const json_value *platform, json_value *hardware, json_value *peaks,
                          json_value *provenance, char *err, size_t err_size)
{
    char who[300];
    if (rb_expect_contended(pairs, n, earlier, n_earlier, who, sizeof who)) {
        rb_fmt(err, err_size,
               "not recording expectations: the GPU was shared while the run measured (%s): "
               "nothing written; record again on an idle GPU",
               who);
        json_free(hardware);
        json_free(peaks);
        json_free(provenance);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const rb_pair_result *p = &pairs[i];
        const char *bad = p->status == RB_PAIR_FAILED ? "failed" : NULL;
        for (int k = 0; !bad && p->status == RB_PAIR_OK && k < p->n_variants; k++)
            if (!rb_expect_dropped(&p->v[k]) && (!p->v[k].valid || !p->v[k].timed))
                bad = p->v[k].name;
        if (bad) {
            rb_fmt(err, err_size, "not recording expectations: %s/%s is not a valid timed result",
                   p->name, bad);
            json_free(hardware);
            json_free(peaks);
            json_free(provenance);
            return -1;
        }
    }
    json_value *d = *doc;
    int oom = 0;
    if (!d) {
        d = json_new_object();
        if (!d) {
            json_free(hardware);
            json_free(peaks);
            json_free(provenance);
            rb_fmt(err, err_size, "out of memory while recording expectations");
            return -1;
        }
        /* Each set takes ownership of its value, also when it fails: all four always run. */
        oom |= json_set_number(d, "schema", 1);
        oom |= json_object_set(d, "hardware", hardware);
        oom |= json_object_set(d, "peaks", peaks ? peaks : json_new_object());
        oom |= json_object_set(d, "ceilings", json_new_object());
        hardware = peaks = NULL;
    }
    /* A file recorded before the datasheet table knew a key gains it; a value already in the
     * file stays (it may have been corrected by hand, with its source). */
    json_value *have = json_get(d, "peaks");
    for (size_t i = 0; peaks && have && have->type == JSON_OBJECT && i < peaks->count; i++)
        if (peaks->items[i]->type == JSON_NUMBER && !json_get(have, peaks->keys[i]))
            oom |= json_set_number(have, peaks->keys[i], peaks->items[i]->number);
    json_free(hardware);
    json_free(peaks);
    oom |= json_object_set(d, "provenance", provenance); /* the last update's */
    json_value *all = json_get(d, "pairs");
    if (!all) {
        all = json_new_object();
        oom |= json_object_set(d, "pairs", all);
    }
    for (int i = 0; !oom && i < n; i++)
        if (pairs[i].status == RB_PAIR_OK)
            oom |= json_object_set(
                all, pairs[i].name,
                pair_entry(pairs, i, earlier, n_earlier, json_get(d, "provenance"), platform));
    if (oom) {
        rb_fmt(err, err_size, "out of memory while recording expectations");
        if (!*doc)
            json_free(d);
        return -1;
    }
    *doc = d;
    return 0;
}

/* ---- datasheet peaks ---- */

typedef struct datasheet {
    const char *key;
    double dram_gbps, fp64, fp32, tf32, bf16, fp8;
    const char *source;
} datasheet;

/* Dense tensor rates (no sparsity). DRAM = 2 x memory clock x bus width. */
static const datasheet datasheets[] = {
    {"nvidia-h100-80gb-hbm3", 3352, 33.5, 66.9, 494.7, 989.4, 1978.9,
     "NVIDIA H100 SXM5 datasheet, dense tensor rates; DRAM 2 x 2619 MHz x 5120 bit; PCIe gen 5 "
     "x16; NVLink 4 (18 links)"},
    {"nvidia-h200", 4814, 33.5, 66.9, 494.7, 989.4, 1978.9,
     "NVIDIA H200 SXM datasheet, dense tensor rates; DRAM 4.8 TB/s; PCIe gen 5 x16; NVLink 4 "
     "(18 links)"},
};

json_value *rb_datasheet_peaks(const char *hardware_key)
{
    char one[256]; /* a machine of several GPUs: each GPU's own peaks */
    rb_hardware_key_single(hardware_key, one, sizeof one);
    for (size_t i = 0; i < sizeof datasheets / sizeof datasheets[0]; i++) {
        const datasheet *s = &datasheets[i];
        if (strcmp(s->key, one) != 0)
            continue;
        json_value *o = json_new_object();
        /* The DRAM figure bounds any mix of reads and writes, so it is also the read-only and
         * write-only streams' peak; FP16's dense tensor rate is BF16's on these parts. PCIe
         * gen 5 x16: 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s each way; NVLink 4: 18
         * links x 25 GB/s = 450 GB/s each way, 900 both ways at once. */
        if (!o || json_set_number(o, "dram_gbps", s->dram_gbps) ||
            json_set_number(o, "dram_read_gbps", s->dram_gbps) ||
            json_set_number(o, "dram_write_gbps", s->dram_gbps) ||
            json_set_number(o, "fp64_tflops", s->fp64) ||
            json_set_number(o, "fp32_tflops", s->fp32) ||
            json_set_number(o, "tf32_tflops", s->tf32) ||
            json_set_number(o, "bf16_tflops", s->bf16) ||
            json_set_number(o, "fp16_tflops", s->bf16) ||
            json_set_number(o, "fp8_tflops", s->fp8) ||
            json_set_number(o, "pcie_h2d_gbps", 63.0) || json_set_number(o, "pcie_d2h_gbps", 63.0) ||
            json_set_number(o, "pcie_duplex_gbps", 126.0) ||
            json_set_number(o, "nvlink_gbps", 450.0) ||
            json_set_number(o, "nvlink_bidir_gbps", 900.0) ||
            json_set_string(o, "source", s->source)) {
            json_free(o);
            return NULL;
        }
        return o;
    }
    return NULL;
}

/* ---- the floors compare and history read ---- */

int rb_expect_variant_at(const json_value *doc, const char *pair, double size,
                         const char *variant, rb_expected *e)
{
    const json_value *ep = json_get(json_get(doc, "pairs"), pair);
    const json_value *x = ep && json_number_at(ep, "size") == size
                              ? json_get(json_get(ep, "variants"), variant)
                              : NULL;
    rb_expected_read(x, e);
    return x != NULL;
}
