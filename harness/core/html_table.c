/* SPDX-License-Identifier: MIT */
#include "html_table.h"

#include <math.h>

#include "util.h"

const char rb_html_table_css[] =
    "table.rb { border-collapse: collapse; font-size: 13px; }\n"
    "table.rb th, table.rb td { border: 1px solid #ccc; padding: 2px 6px; }\n"
    "table.rb th { cursor: pointer; background: #f0f0f0; }\n"
    "table.rb .num { text-align: right; }\n";

const char rb_html_sort_script[] =
    "<script>\n"
    "document.querySelectorAll('table.rb th').forEach(function (th) {\n"
    "  th.addEventListener('click', function () {\n"
    "    var col = th.cellIndex;\n"
    "    var body = th.closest('table').tBodies[0], dir = th.dataset.dir === '1' ? -1 : 1;\n"
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
