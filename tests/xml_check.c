/* SPDX-License-Identifier: MIT */
/* The checks of the tests and the fuzz targets on what the tool writes (see xml_check.h). */
#include "xml_check.h"

#include <string.h>

#include "model/util.h"

/* An entity at s ("&amp;" ...): its length, 0 when it is not one XML knows. */
static size_t entity_len(const char *s)
{
    static const char *const named[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++)
        if (!strncmp(s, named[i], strlen(named[i])))
            return strlen(named[i]);
    if (s[1] == '#') {
        size_t n = 2;
        while (s[n] >= '0' && s[n] <= '9')
            n++;
        return n > 2 && s[n] == ';' ? n + 1 : 0;
    }
    return 0;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == ':' || c == '.';
}

/* One root element; tags balanced and nested; attribute values quoted, without '<'; '&' only as
 * an entity. NULL when well-formed, else what is wrong. Comments, CDATA and processing
 * instructions are refused: the charts write none. */
const char *rb_test_xml_problem(const char *s)
{
    char stack[64][40];
    int depth = 0, roots = 0;
    while (*s) {
        if (*s == '&') {
            if (!entity_len(s))
                return "a bare '&'";
            s += entity_len(s);
        } else if (*s != '<') {
            if (depth == 0 && !strchr(" \t\r\n", *s))
                return "text outside the root element";
            if (*s == '>' && depth == 0)
                return "a stray '>'";
            s++;
        } else if (s[1] == '/') {
            s += 2;
            const char *name = s;
            while (name_char(*s))
                s++;
            size_t n = (size_t)(s - name);
            while (*s == ' ')
                s++;
            if (*s != '>' || depth == 0 || strlen(stack[depth - 1]) != n ||
                strncmp(stack[depth - 1], name, n))
                return "a closing tag that does not match";
            depth--;
            s++;
        } else {
            s++;
            const char *name = s;
            while (name_char(*s))
                s++;
            size_t n = (size_t)(s - name);
            if (n == 0 || n >= 40)
                return "a tag without a name (or '<' in text)";
            if (depth == 0 && roots++)
                return "a second root element";
            for (;;) {
                while (strchr(" \t\r\n", *s) && *s)
                    s++;
                if (*s == '>' || (s[0] == '/' && s[1] == '>'))
                    break;
                const char *attr = s;
                while (name_char(*s))
                    s++;
                if (s == attr || *s != '=' || (s[1] != '"' && s[1] != '\''))
                    return "an attribute without a quoted value";
                char q = s[1];
                for (s += 2; *s && *s != q; s++) {
                    if (*s == '<')
                        return "'<' in an attribute value";
                    if (*s == '&' && !entity_len(s))
                        return "a bare '&' in an attribute value";
                }
                if (!*s)
                    return "an unterminated attribute value";
                s++;
            }
            if (*s == '/') {
                s += 2;
                continue;
            }
            if (depth == 64)
                return "nested too deep";
            memcpy(stack[depth], name, n);
            stack[depth++][n] = '\0';
            s++;
        }
    }
    return depth ? "an element left open" : roots ? NULL : "no root element";
}

const char *rb_test_text_problem(const char *s, int xml)
{
    for (size_t i = 0, n; s[i]; i += n) {
        unsigned char c = (unsigned char)s[i];
        n = rb_utf8_seq(s + i, strnlen(s + i, 4));
        if (n == 0)
            return "a byte that is not UTF-8";
        if (xml && c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return "a control character XML does not allow";
        if (xml && n == 3 && c == 0xEF && (unsigned char)s[i + 1] == 0xBF &&
            (unsigned char)s[i + 2] >= 0xBE)
            return "U+FFFE or U+FFFF";
    }
    return NULL;
}
