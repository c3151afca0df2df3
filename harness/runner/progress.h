/* SPDX-License-Identifier: MIT */
/*
 * The progress of a run on stderr: where stderr is a terminal (and stdout is that terminal or a
 * file), one line redrawn in place, "[12/30] hgemm.square@16M  0:42 elapsed, about 0:38 left",
 * hidden while the run prints its own lines; otherwise (a log, a pipe) a plain line per pair.
 * The estimate comes from each pair's wall time as the expectation file recorded it
 * (--update-expectations), scaled by how this run compares so far.
 */
#ifndef RB_PROGRESS_H
#define RB_PROGRESS_H

/* Seconds left after `done` of n pairs: the recorded wall times of the rest (expected_s[i],
 * NaN where none was recorded: the mean of the recorded ones stands in, else the mean so far),
 * scaled by actual / recorded over the pairs done that have both (within 0.5x to 2x). NaN when
 * nothing is known yet. expected_s may be NULL (nothing recorded). */
double rb_progress_eta_s(const double *expected_s, const double *actual_s, int n, int done);

/* Starts the progress of a run of n pairs (expected_s as above, kept, not copied). */
void rb_progress_start(int n, const double *expected_s);
/* Pair i (from 0) named `name` starts, after actual_s[0..i) seconds each: drawn (in place), or
 * printed as a line. */
void rb_progress_pair(int i, const char *name, const double *actual_s);
/* Around the run's own output to stdout: hide takes the line in place away, show draws it again
 * (both do nothing without one). */
void rb_progress_hide(void);
void rb_progress_show(void);
/* The run is over: the line in place is taken away. */
void rb_progress_end(void);

#endif
