/* SPDX-License-Identifier: MIT */
/*
 * What the tests (tests/test_plot.c, tests/test_robust.c) and the fuzz targets (tests/fuzz/)
 * check of the files the tool writes, so that they can be read back: a tiny XML
 * well-formedness checker for the charts, and a check of the text itself.
 */
#ifndef RB_XML_CHECK_H
#define RB_XML_CHECK_H

/* One root element; tags balanced and nested; attribute values quoted, without '<'; '&' only as
 * an entity. NULL when well-formed, else what is wrong. Comments, CDATA and processing
 * instructions are refused: the charts write none. */
const char *rb_test_xml_problem(const char *s);

/* NULL when s is UTF-8 throughout (xml: and holds only characters XML 1.0 allows: no C0
 * control but tab, newline and carriage return, no U+FFFE or U+FFFF); else what is wrong. */
const char *rb_test_text_problem(const char *s, int xml);

#endif
