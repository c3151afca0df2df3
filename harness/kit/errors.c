/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "model/util.h"
#include "rb_cuda.h"

static char first_error[300];

void rb_error_at(const char *file, int line, const char *expr, const char *msg)
{
    fprintf(stderr, "%s:%d: %s: %s\n", file, line, expr, msg);
    if (!first_error[0])
        rb_fmt(first_error, sizeof first_error, "%s:%d: %s: %s", file, line, expr, msg);
}

void rb_skip_at(const char *file, int line, const char *expr, const char *msg)
{
    (void)file;
    (void)line;
    (void)expr;
    if (!first_error[0])
        rb_fmt(first_error, sizeof first_error, "%s", msg);
}

const char *rb_first_error(void)
{
    return first_error;
}

void rb_error_clear(void)
{
    first_error[0] = '\0';
}
