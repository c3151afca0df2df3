/* SPDX-License-Identifier: MIT */
/*
 * A small SVG writer (no plotting dependency): a growing string plus the few elements the charts
 * need. Every text that comes from outside (a pair's name, a note) goes through rb_sbuf_escaped,
 * so a name with <, &, >, " or ' cannot break the document. Coordinates are written with two
 * decimals; colours and dash patterns are the caller's literal attribute values.
 */
#ifndef RB_SVG_H
#define RB_SVG_H

#include <stddef.h>

#include "util.h" /* rb_sbuf */

/* Appends text escaped for XML and HTML (text and attribute values alike): & < > " ' become
 * entities; control characters XML 1.0 cannot hold (all below 0x20 but tab, newline and carriage
 * return) become a space; bytes that are not UTF-8 and the characters XML refuses (U+FFFE,
 * U+FFFF) become U+FFFD, so any name makes a document an XML parser reads. Coordinates are
 * written finite and within +-1e7 whatever the value given. */
void rb_sbuf_escaped(rb_sbuf *b, const char *text);

/* <svg> with its size and viewBox, a white background, and the default fonts. */
void rb_svg_begin(rb_sbuf *b, double width, double height);
void rb_svg_end(rb_sbuf *b);
/* <g class="cls"> ... </g> (cls NULL: no class). */
void rb_svg_group_begin(rb_sbuf *b, const char *cls);
void rb_svg_group_end(rb_sbuf *b);
/* <marker id="id">: an arrowhead filled with color, drawn at a line's end (rb_svg_line's
 * marker). Markers go inside <defs>: call between rb_svg_defs_begin and rb_svg_defs_end. */
void rb_svg_defs_begin(rb_sbuf *b);
void rb_svg_defs_end(rb_sbuf *b);
void rb_svg_arrow_marker(rb_sbuf *b, const char *id, const char *color);

/* dash NULL: solid; marker NULL: none, else the id of an arrow marker for the line's end. */
void rb_svg_line(rb_sbuf *b, double x1, double y1, double x2, double y2, const char *stroke,
                 double width, const char *dash, const char *marker);
/* n points xy[2i], xy[2i+1]. */
void rb_svg_polyline(rb_sbuf *b, const double *xy, int n, const char *stroke, double width,
                     const char *dash);
void rb_svg_rect(rb_sbuf *b, double x, double y, double w, double h, const char *fill,
                 const char *cls, const char *title);
/* A circle of class cls (NULL: none) with a tooltip (title NULL: none; escaped). */
void rb_svg_circle(rb_sbuf *b, double cx, double cy, double r, const char *fill, const char *cls,
                   const char *title);
/* <path d="d"> (path data the caller built from numbers, written as is) of class cls (NULL:
 * none) with a tooltip (title NULL: none; escaped); stroke NULL: none. */
void rb_svg_path(rb_sbuf *b, const char *d, const char *fill, const char *stroke,
                 double stroke_width, const char *cls, const char *title);
/* Text at (x, y), anchor "start", "middle" or "end", rotated by rotate_deg about (x, y);
 * text is escaped. */
void rb_svg_text(rb_sbuf *b, double x, double y, double size, const char *anchor,
                 const char *fill, double rotate_deg, const char *text);

#endif
