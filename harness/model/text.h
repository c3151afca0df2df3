/* SPDX-License-Identifier: MIT */
/*
 * Text for a person: lines wrapped to a width, names abbreviated to a column, numbers printed
 * with the digits their noise supports, versions as versions, durations as m:ss. Used by the
 * run table and its notes (report/report_table.c), the help (model/cli.c) and the progress line. No CUDA.
 */
#ifndef RB_TEXT_H
#define RB_TEXT_H

#include <stddef.h>

#include "util.h"

/* The width the default output fits (the run table, its notes, the help). */
#define RB_TEXT_WIDTH 100

/* Appends text to b, wrapped at spaces so that no line is longer than width: the first line
 * starts at column `first_col` (what the caller already wrote on it), every further line with
 * `indent` spaces. A word longer than a line is not broken (it gets a line of its own). Ends
 * with a newline. */
void rb_text_wrap(rb_sbuf *b, const char *text, int width, int first_col, int indent);

/* s as it fits in width columns: itself when it fits, else its head and tail joined by '~'
 * ("nccl_allreduce.reduce_scatter@1G" in 20: "nccl_allre~tter@1G"). The same name always
 * abbreviates the same way. width >= 3. */
void rb_text_abbrev(const char *s, int width, char *out, size_t out_size);

/* Significant digits that a value with relative noise `noise` supports: the digit of the size of
 * the noise and one more, 2 to 6 (noise 0.3%: 4 digits, 16%: 2); 4 when the noise is unknown. */
int rb_text_sig_digits(double noise);

/* x with rb_text_sig_digits(noise) significant digits, in plain decimal notation (no exponent,
 * no trailing zeros cut: 0.7040, 275.9, 3020, 1.2e6 as 1200000): "-" for NaN. */
void rb_text_number(double x, double noise, char *out, size_t out_size);
/* The same with at most max_sig significant digits (a rate beside its % of the roof needs no
 * more than 4). */
void rb_text_number_max(double x, double noise, int max_sig, char *out, size_t out_size);

/* A library version that its library encodes as major * 10000 + minor * 100 + patch (NCCL from
 * 2.9, cuBLASLt): 22803 -> "2.28.3", 130100 -> "13.1.0"; "-" when not a whole positive number. */
void rb_text_version(double code, char *out, size_t out_size);

/* Seconds as "m:ss" (or "h:mm:ss" from an hour); "?" when negative or not finite. */
void rb_text_duration(double s, char *out, size_t out_size);

/* A device UUID (cudaDeviceProp.uuid's 16 bytes) as nvidia-smi writes it:
 * "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
void rb_text_uuid(const unsigned char bytes[16], char *out, size_t out_size);

/* What CUDA_VISIBLE_DEVICES must be for a process to see only the index-th GPU of those that
 * `current` (the variable's value now, NULL when unset) shows: its index-th comma-separated
 * entry, or the index itself when unset. 0, or -1 when the list has no such entry. */
int rb_text_visible_pick(const char *current, int index, char *out, size_t out_size);

#endif
