/* SPDX-License-Identifier: MIT */
/* Inside model/node: why a GPU's row fell behind the other GPUs' (the rules are in node.h). */
#ifndef RB_NODE_ATTR_H
#define RB_NODE_ATTR_H

#include "node_doc.h"

/* A platform reference this much slower than the others' (or more, by its noise) can explain. */
#define RB_NODE_PLATFORM_MIN 0.02

typedef struct rb_node_attr {
    const char *attribution; /* "platform", "thermal", "power", "pcie", "ecc", "unexplained" */
    char evidence[400];      /* one line */
} rb_node_attr;

/* The attribution of GPU g's variant v (of row group row), ratio times slower than its
 * reference at threshold, from runs[0..n) (the GPUs of its hardware key, g among them). */
void rb_node_attribute(const rb_node_member *const *runs, int n, int g, const rb_node_group *row,
                       const rb_node_var *v, double ratio, double threshold, rb_node_attr *a);

/* The row group of that name in a run, and a variant of a row group, by name; NULL when absent
 * (or row NULL). */
const rb_node_group *rb_node_row(const rb_node_member *run, const char *name);
const rb_node_var *rb_node_variant(const rb_node_group *row, const char *name);
/* The median of the finite values of x[0..n); NaN when none. */
double rb_node_median(const double *x, int n);
/* The reference of x[g] among x[0..n): with 3 or more finite values their median, with 2 the
 * other one; NaN otherwise. finite (may be NULL): how many values are finite. */
double rb_node_peer_reference(const double *x, int n, int g, int *finite);

#endif
