/* SPDX-License-Identifier: MIT */
#include "svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Is the well-formed UTF-8 character c (n bytes) one XML 1.0 allows? Not U+FFFE, U+FFFF (and
 * the C0 controls, handled apart; surrogates are not well-formed UTF-8). */
static int xml_char(const unsigned char *c, size_t n)
{
    return !(n == 3 && c[0] == 0xEF && c[1] == 0xBF && (c[2] == 0xBE || c[2] == 0xBF));
}

void rb_sbuf_escaped(rb_sbuf *b, const char *text)
{
    const char *run = text; /* bytes that pass as they are */
    const char *p = text;
    while (*p) {
        unsigned char c = (unsigned char)*p;
        const char *esc = NULL;
        size_t n = 1;
        switch (c) {
        case '&': esc = "&amp;"; break;
        case '<': esc = "&lt;"; break;
        case '>': esc = "&gt;"; break;
        case '"': esc = "&quot;"; break;
        case '\'': esc = "&#39;"; break;
        default:
            if (c < 0x20 && !strchr("\t\n\r", c)) {
                esc = " ";
            } else if (c >= 0x80) {
                n = rb_utf8_seq(p, strnlen(p, 4));
                /* not UTF-8, or a character XML refuses: the replacement character */
                if (n == 0 || !xml_char((const unsigned char *)p, n)) {
                    esc = "\xEF\xBF\xBD";
                    n = n ? n : 1;
                }
            }
            break;
        }
        if (esc) {
            if (p > run)
                rb_sbuf_add(b, "%.*s", (int)(p - run), run);
            rb_sbuf_add(b, "%s", esc);
            run = p + n;
        }
        p += n;
    }
    if (p > run)
        rb_sbuf_add(b, "%.*s", (int)(p - run), run);
}

/* A coordinate or size as the SVG holds it: finite and within a range a viewer draws (a value
 * near 1e308 made x="inf"). */
static double px(double v)
{
    if (!(v == v))
        return 0;
    return v > 1e7 ? 1e7 : v < -1e7 ? -1e7 : v;
}

void rb_svg_begin(rb_sbuf *b, double width, double height)
{
    rb_sbuf_add(b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, "
                "monospace\">\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                "fill=\"#ffffff\"/>\n",
                px(width), px(height), px(width), px(height), px(width), px(height));
}

void rb_svg_end(rb_sbuf *b)
{
    rb_sbuf_add(b, "</svg>\n");
}

void rb_svg_group_begin(rb_sbuf *b, const char *cls)
{
    if (cls) {
        rb_sbuf_add(b, "<g class=\"");
        rb_sbuf_escaped(b, cls);
        rb_sbuf_add(b, "\">\n");
    } else {
        rb_sbuf_add(b, "<g>\n");
    }
}

void rb_svg_group_end(rb_sbuf *b)
{
    rb_sbuf_add(b, "</g>\n");
}

void rb_svg_defs_begin(rb_sbuf *b)
{
    rb_sbuf_add(b, "<defs>\n");
}

void rb_svg_defs_end(rb_sbuf *b)
{
    rb_sbuf_add(b, "</defs>\n");
}

void rb_svg_arrow_marker(rb_sbuf *b, const char *id, const char *color)
{
    /* refX at the tip: the line ends where the arrow points */
    rb_sbuf_add(b, "<marker id=\"");
    rb_sbuf_escaped(b, id);
    rb_sbuf_add(b,
                "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
                "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
                "fill=\"%s\"/></marker>\n",
                color);
}

static void stroke_attrs(rb_sbuf *b, const char *stroke, double width, const char *dash)
{
    rb_sbuf_add(b, " stroke=\"%s\" stroke-width=\"%.2f\"", stroke, width);
    if (dash)
        rb_sbuf_add(b, " stroke-dasharray=\"%s\"", dash);
}

void rb_svg_line(rb_sbuf *b, double x1, double y1, double x2, double y2, const char *stroke,
                 double width, const char *dash, const char *marker)
{
    rb_sbuf_add(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", px(x1), px(y1), px(x2),
                px(y2));
    stroke_attrs(b, stroke, width, dash);
    if (marker) {
        rb_sbuf_add(b, " marker-end=\"url(#");
        rb_sbuf_escaped(b, marker);
        rb_sbuf_add(b, ")\"");
    }
    rb_sbuf_add(b, "/>\n");
}

void rb_svg_polyline(rb_sbuf *b, const double *xy, int n, const char *stroke, double width,
                     const char *dash)
{
    rb_sbuf_add(b, "<polyline fill=\"none\" points=\"");
    for (int i = 0; i < n; i++)
        rb_sbuf_add(b, "%s%.2f,%.2f", i ? " " : "", px(xy[2 * i]), px(xy[2 * i + 1]));
    rb_sbuf_add(b, "\"");
    stroke_attrs(b, stroke, width, dash);
    rb_sbuf_add(b, "/>\n");
}

/* Ends an element that may carry a tooltip: <title> as its child. */
static void close_with_title(rb_sbuf *b, const char *tag, const char *title)
{
    if (!title) {
        rb_sbuf_add(b, "/>\n");
        return;
    }
    rb_sbuf_add(b, "><title>");
    rb_sbuf_escaped(b, title);
    rb_sbuf_add(b, "</title></%s>\n", tag);
}

static void class_attr(rb_sbuf *b, const char *cls)
{
    if (!cls)
        return;
    rb_sbuf_add(b, " class=\"");
    rb_sbuf_escaped(b, cls);
    rb_sbuf_add(b, "\"");
}

void rb_svg_rect(rb_sbuf *b, double x, double y, double w, double h, const char *fill,
                 const char *cls, const char *title)
{
    rb_sbuf_add(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"", px(x),
                px(y), px(w), px(h), fill);
    class_attr(b, cls);
    close_with_title(b, "rect", title);
}

void rb_svg_circle(rb_sbuf *b, double cx, double cy, double r, const char *fill, const char *cls,
                   const char *title)
{
    rb_sbuf_add(b,
                "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" stroke=\"#000000\" "
                "stroke-width=\"0.60\"",
                px(cx), px(cy), px(r), fill);
    class_attr(b, cls);
    close_with_title(b, "circle", title);
}

void rb_svg_path(rb_sbuf *b, const char *d, const char *fill, const char *stroke,
                 double stroke_width, const char *cls, const char *title)
{
    rb_sbuf_add(b, "<path d=\"%s\" fill=\"%s\"", d, fill);
    if (stroke)
        stroke_attrs(b, stroke, stroke_width, NULL);
    class_attr(b, cls);
    close_with_title(b, "path", title);
}

void rb_svg_text(rb_sbuf *b, double x, double y, double size, const char *anchor,
                 const char *fill, double rotate_deg, const char *text)
{
    rb_sbuf_add(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"%s\" fill=\"%s\"",
                px(x), px(y), px(size), anchor, fill);
    if (rotate_deg != 0)
        rb_sbuf_add(b, " transform=\"rotate(%.2f %.2f %.2f)\"", px(rotate_deg), px(x), px(y));
    rb_sbuf_add(b, ">");
    rb_sbuf_escaped(b, text);
    rb_sbuf_add(b, "</text>\n");
}
