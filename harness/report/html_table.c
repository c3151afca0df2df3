/* SPDX-License-Identifier: MIT */
#include "html_table.h"

#include <ctype.h>
#include <math.h>

#include "util.h"

const char rb_html_table_css[] =
    "body { font-family: system-ui, sans-serif; margin: 1.5em; color: #111; }\n"
    "h1 { font-size: 1.35em; }\n"
    "h2 { font-size: 1.15em; margin-top: 1.4em; }\n"
    "code { background: #f4f4f4; padding: 0 3px; }\n"
    ".chart { overflow-x: auto; }\n"
    "p.counts .badge { display: inline-block; padding: 1px 9px; margin: 2px 4px 2px 0; "
    "border-radius: 10px; font-size: 13px; }\n"
    "table.rb { border-collapse: collapse; font-size: 13px; }\n"
    "table.rb th, table.rb td { border: 1px solid #ccc; padding: 2px 6px; }\n"
    "table.rb th { cursor: pointer; background: #f0f0f0; user-select: none; }\n"
    "table.rb th[data-dir=\"1\"]::after { content: \" \\25B2\"; }\n"
    "table.rb th[data-dir=\"-1\"]::after { content: \" \\25BC\"; }\n"
    "table.rb .num { text-align: right; font-variant-numeric: tabular-nums; }\n"
    "table.rb tr.info td { color: #666; }\n"
    ".v-pass, .v-same { background: #e3f3e6; color: #1b5e2b; }\n"
    ".v-improved, .v-faster { background: #bfe6c8; color: #0b4d1c; font-weight: bold; }\n"
    ".v-regressed, .v-slower, .v-invalid { background: #f9d0d3; color: #8a1520; "
    "font-weight: bold; }\n"
    ".v-unclear, .v-stale, .v-contended { background: #fff0c2; color: #7a5a00; }\n"
    ".v-blind { background: #ebe2f7; color: #4a2a80; }\n"
    ".v-new { background: #dcebfa; color: #174a85; }\n"
    ".v-missing, .v-skipped, .v-not-compared { background: #eeeeee; color: #555555; }\n"
    ".v-informational { background: #f3f3f3; color: #555555; font-style: italic; }\n";

const char rb_html_sort_script[] =
    "<script>\n"
    "document.querySelectorAll('table.rb th').forEach(function (th) {\n"
    "  th.addEventListener('click', function () {\n"
    "    var col = th.cellIndex;\n"
    "    var body = th.closest('table').tBodies[0], dir = th.dataset.dir === '1' ? -1 : 1;\n"
    "    th.closest('tr').querySelectorAll('th').forEach(function (o) {\n"
    "      if (o !== th) delete o.dataset.dir;\n"
    "    });\n"
    "    th.dataset.dir = dir === 1 ? '1' : '-1';\n"
    "    var num = th.classList.contains('num'), rows = Array.prototype.slice.call(body.rows);\n"
    "    rows.sort(function (a, b) {\n"
    "      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;\n"
    "      if (!num) return dir * x.localeCompare(y);\n"
    "      x = x === '' ? NaN : +x; y = y === '' ? NaN : +y;\n"
    "      if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);\n"
    "      return dir * (x - y);\n"
    "    });\n"
    "    rows.forEach(function (r) { body.appendChild(r); });\n"
    "  });\n"
    "});\n"
    "</script>\n";

void rb_html_page_begin(rb_sbuf *b, const char *title)
{
    rb_sbuf_add(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<title>");
    rb_sbuf_escaped(b, title);
    rb_sbuf_add(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", rb_html_table_css);
    rb_sbuf_escaped(b, title);
    rb_sbuf_add(b, "</h1>\n");
}

void rb_html_page_end(rb_sbuf *b)
{
    rb_sbuf_add(b, "%s</body>\n</html>\n", rb_html_sort_script);
}

void rb_html_verdict_class(const char *verdict, char *out, size_t out_size)
{
    size_t n = 0;
    int dash = 0;
    rb_fmt(out, out_size, "v-");
    n = 2;
    for (const unsigned char *p = (const unsigned char *)verdict; *p && n + 2 < out_size; p++) {
        if (isalnum(*p)) {
            if (dash && n > 2)
                out[n++] = '-';
            out[n++] = (char)tolower(*p);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[n] = '\0';
}

void rb_html_cell_verdict(rb_sbuf *b, const char *verdict, const char *shown)
{
    char cls[64];
    rb_html_verdict_class(verdict, cls, sizeof cls);
    rb_sbuf_add(b, "<td class=\"verdict %s\" data-v=\"", cls);
    rb_sbuf_escaped(b, shown);
    rb_sbuf_add(b, "\">");
    rb_sbuf_escaped(b, shown);
    rb_sbuf_add(b, "</td>");
}

void rb_html_counts(rb_sbuf *b, const char *label, const char *const *names, const int *counts,
                    int n)
{
    int any = 0;
    rb_sbuf_add(b, "<p class=\"counts\">");
    rb_sbuf_escaped(b, label);
    rb_sbuf_add(b, ": ");
    for (int i = 0; i < n; i++) {
        if (!counts[i])
            continue;
        char cls[64];
        rb_html_verdict_class(names[i], cls, sizeof cls);
        rb_sbuf_add(b, "<span class=\"badge %s\">%d ", cls, counts[i]);
        rb_sbuf_escaped(b, names[i]);
        rb_sbuf_add(b, "</span>");
        any = 1;
    }
    rb_sbuf_add(b, "%s</p>\n", any ? "" : "none");
}

void rb_html_cell_text(rb_sbuf *b, const char *text)
{
    rb_sbuf_add(b, "<td data-v=\"");
    rb_sbuf_escaped(b, text);
    rb_sbuf_add(b, "\">");
    rb_sbuf_escaped(b, text);
    rb_sbuf_add(b, "</td>");
}

void rb_html_cell_number(rb_sbuf *b, double x, const char *fmt, double scale)
{
    if (!isfinite(x)) {
        rb_sbuf_add(b, "<td class=\"num\" data-v=\"\">-</td>");
        return;
    }
    char shown[64];
    rb_fmt(shown, sizeof shown, fmt, x * scale);
    rb_sbuf_add(b, "<td class=\"num\" data-v=\"%.17g\">%s</td>", x, shown);
}
