/* SPDX-License-Identifier: MIT */
/*
 * compare's other views of one comparison (runcmp.h): Markdown for a pull-request comment, and
 * CSV for a spreadsheet.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runcmp.h"
#include "util.h"

/* ---- Markdown ---- */

static int is_change(rb_change c)
{
    return c != RB_CHANGE_SAME && c != RB_CHANGE_NOT_COMPARED;
}

/* "+1.2% | " of a ratio, "- | " when unknown. */
static void md_change(rb_sbuf *b, double ratio)
{
    if (isfinite(ratio))
        rb_sbuf_add(b, "%+.1f%% | ", 100 * (ratio - 1));
    else
        rb_sbuf_add(b, "- | ");
}

static void md_table(rb_sbuf *b, const rb_runcmp *c, int changed)
{
    rb_sbuf_add(b, "| pair/variant | old ms | new ms | change | cycles | energy | 90%% interval | "
                   "floor | verdict | cause | evidence |\n"
                   "|:--|--:|--:|--:|--:|--:|:--|--:|:--|:--|:--|\n");
    for (int i = 0; i < c->n_rows; i++) {
        const rb_runcmp_row *r = &c->rows[i];
        if (is_change(r->change) != changed)
            continue;
        rb_sbuf_add(b, "| ");
        rb_md_text(b, r->pair);
        rb_sbuf_add(b, "/");
        rb_md_text(b, r->variant);
        if (r->change == RB_CHANGE_NOT_COMPARED) {
            rb_sbuf_add(b, " | - | - | - | - | - | - | - | not compared | | ");
        } else {
            rb_sbuf_add(b, " | %.4f | %.4f | %+.1f%% | ", r->old_ms, r->new_ms,
                        100 * (r->ratio - 1));
            md_change(b, r->cycles_ratio);
            md_change(b, r->energy_ratio);
            if (isfinite(r->ratio_lo))
                rb_sbuf_add(b, "[%.3f, %.3f]", r->ratio_lo, r->ratio_hi);
            else
                rb_sbuf_add(b, "-");
            rb_sbuf_add(b, " | %.1f%% | %s%s%s | %s | ", 100 * r->floor,
                        is_change(r->change) ? "**" : "", rb_change_name(r->change),
                        is_change(r->change) ? "**" : "", rb_cause_name(r->cause));
        }
        rb_md_text(b, r->evidence);
        rb_sbuf_add(b, " |\n");
    }
}

static void md_env(rb_sbuf *b, const rb_runcmp *c)
{
    if (!c->n_env) {
        rb_sbuf_add(b, "environment: 0 facts differ, %d the same\n\n", c->n_env_same);
        return;
    }
    rb_sbuf_add(b,
                "<details><summary>environment: %d fact(s) differ, %d the same</summary>\n\n"
                "| fact | OLD | NEW |\n|:--|:--|:--|\n",
                c->n_env, c->n_env_same);
    for (int i = 0; i < c->n_env; i++) {
        rb_sbuf_add(b, "| ");
        rb_md_text(b, c->env[i].key);
        rb_sbuf_add(b, " | ");
        rb_md_text(b, c->env[i].old_value);
        rb_sbuf_add(b, " | ");
        rb_md_text(b, c->env[i].new_value);
        rb_sbuf_add(b, " |\n");
    }
    rb_sbuf_add(b, "\n</details>\n\n");
}

static void md_run(rb_sbuf *b, const char *which, const char *path, const char *git,
                   const char *date)
{
    rb_sbuf_add(b, "%s ", which);
    rb_md_text(b, path);
    rb_sbuf_add(b, " (git ");
    rb_md_text(b, git);
    rb_sbuf_add(b, ", ");
    rb_md_text(b, date);
    rb_sbuf_add(b, ")");
}

void rb_runcmp_markdown_to(rb_sbuf *out, const rb_runcmp *c, const char *old_path,
                           const char *new_path)
{
    rb_sbuf *b = out;
    char note[400];
    if (c->floors_line) {
        rb_md_text(b, c->floors_line);
        rb_sbuf_add(b, "\n\n");
    }
    rb_sbuf_add(b, "**roofbench compare**: ");
    md_run(b, "OLD", old_path, c->old_git, c->old_date);
    rb_sbuf_add(b, " → ");
    md_run(b, "NEW", new_path, c->new_git, c->new_date);
    rb_sbuf_add(b, "\n\n");
    rb_runcmp_code_note(c, note, sizeof note);
    if (note[0]) {
        rb_md_text(b, note);
        rb_sbuf_add(b, "\n\n");
    }
    if (c->filter) {
        rb_sbuf_add(b, "filter '");
        rb_md_text(b, c->filter);
        rb_sbuf_add(b, "': %d variant(s), %d left out\n\n", c->n_rows, c->n_filtered_out);
    }
    int failing = rb_runcmp_failing(c, 0),
        changed = c->n_rows - c->counts[RB_CHANGE_SAME] - c->counts[RB_CHANGE_NOT_COMPARED];
    rb_sbuf_add(b, "**%d slower** · %d faster · %d unclear · %d blind · %d same · %d not compared",
                c->counts[RB_CHANGE_SLOWER], c->counts[RB_CHANGE_FASTER],
                c->counts[RB_CHANGE_UNCLEAR], c->counts[RB_CHANGE_BLIND], c->counts[RB_CHANGE_SAME],
                c->counts[RB_CHANGE_NOT_COMPARED]);
    if (failing)
        rb_sbuf_add(b, " · %d slower for a cause other than the machine (platform, clock)", failing);
    rb_sbuf_add(b, "\n\n");
    if (changed)
        md_table(b, c, 1);
    rb_sbuf_add(b, "\n<details><summary>%d same, %d not compared</summary>\n\n",
                c->counts[RB_CHANGE_SAME], c->counts[RB_CHANGE_NOT_COMPARED]);
    md_table(b, c, 0);
    rb_sbuf_add(b, "\n</details>\n\n");
    md_env(b, c);
    rb_sbuf_add(b, "<sub>");
    rb_md_text(b, RB_RUNCMP_RULE);
    rb_sbuf_add(b, "</sub>\n");
}

char *rb_runcmp_markdown(const rb_runcmp *c, const char *old_path, const char *new_path)
{
    rb_sbuf b = {0};
    rb_runcmp_markdown_to(&b, c, old_path, new_path);
    return rb_sbuf_take(&b);
}

/* ---- CSV ---- */

void rb_runcmp_csv_to(rb_sbuf *out, const rb_runcmp *c)
{
    rb_sbuf *b = out;
    rb_sbuf_add(b, "pair,variant,roof,old_ms,new_ms,change_pct,cycles_change_pct,"
                   "energy_change_pct,ratio_lo,ratio_hi,floor_pct,floor_from,verdict,cause,"
                   "evidence\r\n");
    for (int i = 0; i < c->n_rows; i++) {
        const rb_runcmp_row *r = &c->rows[i];
        int judged = r->change != RB_CHANGE_NOT_COMPARED;
        rb_csv_field(b, r->pair, 0);
        rb_csv_field(b, r->variant, 0);
        rb_csv_field(b, r->roof, 0);
        rb_csv_number(b, r->old_ms, 1);
        rb_csv_number(b, r->new_ms, 1);
        rb_csv_number(b, r->ratio - 1, 100);
        rb_csv_number(b, r->cycles_ratio - 1, 100);
        rb_csv_number(b, r->energy_ratio - 1, 100);
        rb_csv_number(b, r->ratio_lo, 1);
        rb_csv_number(b, r->ratio_hi, 1);
        rb_csv_number(b, r->floor, 100);
        rb_csv_field(b, !judged ? "" : r->floor_from_runs ? "recorded runs" : "timed loops", 0);
        rb_csv_field(b, rb_change_name(r->change), 0);
        rb_csv_field(b, rb_cause_name(r->cause), 0);
        rb_csv_field(b, r->evidence, 1);
    }
}

char *rb_runcmp_csv(const rb_runcmp *c)
{
    rb_sbuf b = {0};
    rb_runcmp_csv_to(&b, c);
    return rb_sbuf_take(&b);
}
