/* yamlutil.c — strict YAML 1.2 reading on top of libyaml (see yamlutil.h).
 *
 * libyaml is a YAML 1.1 parser; the typing here is ours: docs/scenarios.md
 * "Loading rules" asks for the YAML 1.2 core schema and refuses the YAML 1.1
 * forms whose meaning changed (0x…, 017, 1_000, 1:30, .inf). YAML 1.1's
 * booleans yes/no/on/off/y/n are strings in YAML 1.2: they load where text
 * is expected (a plan named off) and y_get_bool refuses them with a hint. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/regular_file.h"
#include "input/yamlutil.h"

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

/* ================================================================ node access */

yaml_node_t *ydoc_root(const pe_ydoc *d)
{
    if (!d->loaded)
        return NULL;
    return yaml_document_get_root_node((yaml_document_t *)&d->doc);
}

yaml_node_t *ydoc_node(const pe_ydoc *d, int id)
{
    return yaml_document_get_node((yaml_document_t *)&d->doc, id);
}

void ydoc_free(pe_ydoc *d)
{
    if (d && d->loaded) {
        yaml_document_delete(&d->doc);
        d->loaded = false;
    }
}

const char *y_text(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
}

size_t y_len(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? n->data.scalar.length : 0;
}

int y_line(const yaml_node_t *n) { return n ? (int)n->start_mark.line + 1 : 0; }
int y_col(const yaml_node_t *n) { return n ? (int)n->start_mark.column + 1 : 0; }

static bool text_is(const char *t, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(t, word, len) == 0;
}

static bool is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* ================================================================ errors */

pe_status y_fail(pe_error *err, const pe_ydoc *d, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[PE_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pe_fail(err, PE_BAD_INPUT, d ? d->path : NULL, y_line(n), y_col(n), "%s", msg);
}

void y_quote(const char *text, size_t len, char *buf, size_t size)
{
    /* Long scalars (a 1 MB description) are cut at a character boundary;
     * control characters are shown as '?' so a message stays one line. */
    const size_t limit = 60;
    size_t n = len;
    bool cut = false;
    if (n > limit) {
        n = limit;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
        cut = true;
    }
    size_t o = 0;
    if (size < 8)
        return;
    buf[o++] = '"';
    for (size_t i = 0; i < n && o + 6 < size; i++) {
        unsigned char c = (unsigned char)text[i];
        buf[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (cut && o + 5 < size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

void y_describe(const yaml_node_t *n, char *buf, size_t size)
{
    char q[96];
    switch (y_kind(n)) {
    case PE_Y_MAP: snprintf(buf, size, "a mapping"); return;
    case PE_Y_SEQ: snprintf(buf, size, "a list"); return;
    case PE_Y_NULL: snprintf(buf, size, "null"); return;
    case PE_Y_QUOTED:
        y_quote(y_text(n), y_len(n), q, sizeof q);
        snprintf(buf, size, "the string %s", q);
        return;
    default:
        y_quote(y_text(n), y_len(n), buf, size);
        return;
    }
}

/* "path: " before a message about a value, or "" at the top level. */
static const char *pfx(const char *path, char *buf, size_t size)
{
    if (!path || !path[0])
        return "";
    snprintf(buf, size, "%s: ", path);
    return buf;
}

/* Append src to out (used bytes *o), silently cut at PE_YPATH_MAX: a path
 * only ever appears in a message. */
static void append(char *out, size_t *o, const char *src)
{
    size_t n = strlen(src);
    if (*o + n >= PE_YPATH_MAX)
        n = PE_YPATH_MAX - 1 - *o;
    memcpy(out + *o, src, n);
    *o += n;
    out[*o] = '\0';
}

void y_path(char *out, const char *base, const char *key)
{
    size_t o = 0;
    out[0] = '\0';
    if (base && base[0]) {
        append(out, &o, base);
        append(out, &o, ".");
    }
    append(out, &o, key);
}

void y_path_index(char *out, const char *base, size_t i)
{
    char idx[32];
    size_t o = 0;
    out[0] = '\0';
    snprintf(idx, sizeof idx, "[%zu]", i);
    append(out, &o, base);
    append(out, &o, idx);
}

/* ================================================================ suggestions */

/* Optimal string alignment distance, case-insensitive; words longer than 64
 * bytes are never close to a key. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXW = 64 };
    if (la > MAXW || lb > MAXW)
        return SIZE_MAX;
    size_t d[MAXW + 1][MAXW + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t cost = ca == cb ? 0 : 1;
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1; /* transposition: "1fb1" -> "1f1b" */
            d[i][j] = v;
        }
    return d[la][lb];
}

/* The one candidate that word begins, up to a separator ('_', '-', '.'):
 * mem_total -> mem_total_gib, h100 -> h100-node; NULL when none or several. */
static const char *unique_extension(const char *word, size_t len, const char *const *cands,
                                    size_t n)
{
    const char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *c = cands[i];
        if (len > 0 && strlen(c) > len && strncmp(c, word, len) == 0 &&
            strchr("_-.", c[len])) {
            if (found)
                return NULL;
            found = c;
        }
    }
    return found;
}

const char *y_suggest(const char *word, size_t len, const char *const *cands, size_t n)
{
    const char *ext = unique_extension(word, len, cands, n);
    if (ext)
        return ext;
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t lc = strlen(cands[i]);
        size_t dist = edit_distance(word, len, cands[i], lc);
        size_t limit = lc <= 3 ? 1 : 2;
        if (dist <= limit && dist < best_d) {
            best = cands[i];
            best_d = dist;
        }
    }
    return best;
}

/* ================================================================ scalar typing */

/* Plain scalars the YAML 1.2 core schema reads differently from YAML 1.1,
 * refused wherever they stand (docs/scenarios.md "Loading rules"), except
 * the booleans (strings in YAML 1.2, refused only where a boolean is asked). */
typedef enum {
    AMB_NONE,
    AMB_BOOL11,
    AMB_INF_NAN,
    AMB_HEX,
    AMB_OCTAL,
    AMB_BINARY,
    AMB_LEADING_ZERO,
    AMB_UNDERSCORE,
    AMB_SEXAGESIMAL
} ambiguity;

static bool all_in(const char *t, size_t len, const char *set)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr(set, t[i]) || t[i] == '\0')
            return false;
    return len > 0;
}

static bool match_int(const char *t, size_t len)
{
    size_t i = 0;
    if (i < len && (t[i] == '-' || t[i] == '+'))
        i++;
    if (i >= len)
        return false;
    if (t[i] == '0')
        return i + 1 == len; /* "0" alone: no leading zeros */
    return all_in(t + i, len - i, "0123456789");
}

/* YAML 1.2 core float: [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static bool match_float(const char *t, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (t[i] == '-' || t[i] == '+'))
        i++;
    while (i < len && isdigit((unsigned char)t[i]))
        i++, digits++;
    if (i < len && t[i] == '.') {
        i++;
        size_t frac = 0;
        while (i < len && isdigit((unsigned char)t[i]))
            i++, frac++;
        if (digits == 0 && frac == 0)
            return false;
    } else if (digits == 0) {
        return false;
    }
    if (i < len && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < len && (t[i] == '-' || t[i] == '+'))
            i++;
        size_t ed = 0;
        while (i < len && isdigit((unsigned char)t[i]))
            i++, ed++;
        if (ed == 0)
            return false;
    }
    return i == len;
}

static ambiguity classify_ambiguous(const char *t, size_t len)
{
    static const char *const bool11[] = {"y",   "Y",  "yes", "Yes", "YES", "n",   "N",
                                         "no",  "No", "NO",  "on",  "On",  "ON",  "off",
                                         "Off", "OFF"};
    for (size_t i = 0; i < sizeof bool11 / sizeof bool11[0]; i++)
        if (text_is(t, len, bool11[i]))
            return AMB_BOOL11;
    size_t i = (len > 0 && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
    const char *u = t + i;
    size_t ul = len - i;
    if (text_is(u, ul, ".inf") || text_is(u, ul, ".Inf") || text_is(u, ul, ".INF") ||
        text_is(t, len, ".nan") || text_is(t, len, ".NaN") || text_is(t, len, ".NAN"))
        return AMB_INF_NAN;
    if (ul > 2 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') &&
        all_in(u + 2, ul - 2, "0123456789abcdefABCDEF_"))
        return AMB_HEX;
    if (ul > 2 && u[0] == '0' && u[1] == 'o' && all_in(u + 2, ul - 2, "01234567_"))
        return AMB_OCTAL;
    if (ul > 2 && u[0] == '0' && u[1] == 'b' && all_in(u + 2, ul - 2, "01_"))
        return AMB_BINARY;
    if (ul > 1 && u[0] == '0' && all_in(u, ul, "0123456789_"))
        return AMB_LEADING_ZERO;
    /* 1_000 or 1_000.5: a number with digit separators (YAML 1.1 only) */
    if (ul > 0 && isdigit((unsigned char)u[0]) && memchr(u, '_', ul) && ul < 128) {
        char buf[128];
        size_t o = 0;
        for (size_t k = 0; k < ul; k++)
            if (u[k] != '_')
                buf[o++] = u[k];
        if (match_float(buf, o))
            return AMB_UNDERSCORE;
    }
    /* 1:30 or 1:30:00.5, YAML 1.1 base 60 */
    if (ul > 0 && isdigit((unsigned char)u[0]) && memchr(u, ':', ul)) {
        size_t k = 0;
        while (k < ul && (isdigit((unsigned char)u[k]) || u[k] == '_'))
            k++;
        size_t groups = 0;
        while (k < ul && u[k] == ':') {
            k++;
            size_t g = 0;
            while (k < ul && isdigit((unsigned char)u[k]) && g < 2)
                k++, g++;
            if (g == 0)
                break;
            groups++;
        }
        if (k < ul && u[k] == '.') {
            k++;
            while (k < ul && (isdigit((unsigned char)u[k]) || u[k] == '_'))
                k++;
        }
        if (groups > 0 && k == ul)
            return AMB_SEXAGESIMAL;
    }
    return AMB_NONE;
}

pe_ykind y_kind(const yaml_node_t *n)
{
    if (n->type == YAML_MAPPING_NODE)
        return PE_Y_MAP;
    if (n->type == YAML_SEQUENCE_NODE)
        return PE_Y_SEQ;
    if (!is_plain(n))
        return PE_Y_QUOTED;
    const char *t = y_text(n);
    size_t len = y_len(n);
    if (len == 0 || text_is(t, len, "~") || text_is(t, len, "null") || text_is(t, len, "Null") ||
        text_is(t, len, "NULL"))
        return PE_Y_NULL;
    if (text_is(t, len, "true") || text_is(t, len, "True") || text_is(t, len, "TRUE") ||
        text_is(t, len, "false") || text_is(t, len, "False") || text_is(t, len, "FALSE"))
        return PE_Y_BOOL;
    if (match_int(t, len))
        return PE_Y_INT;
    if (match_float(t, len))
        return PE_Y_FLOAT;
    return PE_Y_STR;
}

bool y_is_string(const yaml_node_t *n)
{
    pe_ykind k = y_kind(n);
    return k == PE_Y_STR || k == PE_Y_QUOTED;
}

bool y_is_plain_word(const yaml_node_t *n, const char *word)
{
    return is_plain(n) && text_is(y_text(n), y_len(n), word);
}

bool y_valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
              *s == '-'))
            return false;
    return true;
}

/* ================================================================ parsing */

/* 1-based line and column (in characters) of byte offset off. */
static void offset_position(const char *data, size_t size, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    if (off > size)
        off = size;
    for (size_t i = 0; i < off; i++) {
        unsigned char ch = (unsigned char)data[i];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* Whether line `line` (0-based) has a ': ' (or ':' and a tab) before its
 * character `column`: then a "mapping values are not allowed" there is a
 * second ': ' inside the value of a key, not an overlong key. */
static bool colon_before(const char *data, size_t size, size_t line, size_t column)
{
    size_t i = 0;
    for (size_t l = 0; l < line && i < size; i++)
        if (data[i] == '\n')
            l++;
    for (size_t c = 0; i + 1 < size && c < column && data[i] != '\n'; i++) {
        if (data[i] == ':' && (data[i + 1] == ' ' || data[i + 1] == '\t'))
            return true;
        if (((unsigned char)data[i] & 0xC0) != 0x80) /* count characters, as libyaml's marks */
            c++;
    }
    return false;
}

static pe_status parser_error(const yaml_parser_t *p, const char *path, const char *data,
                              size_t size, pe_error *err)
{
    const char *problem = p->problem ? p->problem : "unknown problem";
    if (p->error == YAML_MEMORY_ERROR)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory while reading YAML");
    if (p->error == YAML_READER_ERROR) {
        /* libyaml gives a byte offset here, not a mark. A bad trailing byte
         * is reported at the start of its sequence, where the user sees the
         * odd character. */
        size_t off = p->problem_offset < size ? p->problem_offset : size;
        bool utf8 = strstr(problem, "UTF-8") || strstr(problem, "Unicode");
        if (utf8 && strstr(problem, "trailing"))
            while (off > 0 && ((unsigned char)data[off] & 0xC0) != 0xC0 &&
                   ((unsigned char)data[off - 1] & 0x80))
                off--;
        int line, col;
        offset_position(data, size, off, &line, &col);
        if (utf8) {
            if (off < size)
                return pe_fail(err, PE_BAD_INPUT, path, line, col,
                               "the file is not valid UTF-8: invalid byte sequence starting "
                               "with 0x%02x (save the file as UTF-8)",
                               (unsigned char)data[off]);
            return pe_fail(err, PE_BAD_INPUT, path, line, col,
                           "the file is not valid UTF-8: %s (save the file as UTF-8)", problem);
        }
        return pe_fail(err, PE_BAD_INPUT, path, line, col,
                       "the file contains a character YAML does not allow (%s, U+%04X)", problem,
                       (unsigned)(p->problem_value < 0 ? 0 : p->problem_value));
    }
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->error == YAML_COMPOSER_ERROR && strstr(problem, "undefined alias")) {
        /* the alias name follows the '*' at the mark */
        size_t i = p->problem_mark.index, n = 0;
        if (i < size && data[i] == '*')
            i++;
        while (i + n < size && n < 64 && (isalnum((unsigned char)data[i + n]) ||
                                          data[i + n] == '_' || data[i + n] == '-'))
            n++;
        return pe_fail(err, PE_BAD_INPUT, path, line, col,
                       "alias *%.*s refers to no anchor (&%.*s must come before it)", (int)n,
                       data + i, (int)n, data + i);
    }
    if (strstr(problem, "mapping values are not allowed") &&
        colon_before(data, size, p->problem_mark.line, p->problem_mark.column))
        return pe_fail(err, PE_BAD_INPUT, path, line, col,
                       "YAML syntax error: %s (a second ': ' on this line: quote the value, "
                       "or put each key on its own line)",
                       problem);
    if (col > 1024 && (strstr(problem, "mapping values are not allowed") ||
                       (p->context && strstr(p->context, "simple key"))))
        return pe_fail(err, PE_BAD_INPUT, path, line, col,
                       "YAML syntax error: %s (a key is at most 1024 characters: YAML reads "
                       "a longer one as a value, not a key)", problem);
    if (p->context)
        return pe_fail(err, PE_BAD_INPUT, path, line, col,
                       "YAML syntax error: %s (%s that starts at line %d)", problem, p->context,
                       (int)p->context_mark.line + 1);
    return pe_fail(err, PE_BAD_INPUT, path, line, col, "YAML syntax error: %s", problem);
}

static pe_status event_fail(pe_error *err, const char *path, const yaml_mark_t *m,
                            const char *fmt, const char *arg)
{
    return pe_fail(err, PE_BAD_INPUT, path, (int)m->line + 1, (int)m->column + 1, fmt, arg);
}

/* Pass 1 over the events: what the document API hides or builds too late —
 * explicit tags (the document API fills in default tags, so `!!str 96`
 * would look like a plain string), several documents, an empty stream, and
 * nesting depth before a pathological file is built into a tree. */
static pe_status scan_events(const char *path, const char *data, size_t size, pe_error *err)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)data, size);
    yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING); /* refuse UTF-16: docs/scenarios.md */
    pe_status st = PE_OK;
    int documents = 0, depth = 0;
    bool done = false;
    while (!done && st == PE_OK) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            st = parser_error(&p, path, data, size, err);
            break;
        }
        const char *tag = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1)
                st = event_fail(err, path, &ev.start_mark,
                                "several YAML documents in one file; %s holds exactly one "
                                "(remove the second '---')",
                                "a scenario or catalog file");
            break;
        case YAML_SCALAR_EVENT:
            tag = (const char *)ev.data.scalar.tag;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            tag = ev.type == YAML_SEQUENCE_START_EVENT ? (const char *)ev.data.sequence_start.tag
                                                       : (const char *)ev.data.mapping_start.tag;
            if (++depth > PE_YAML_MAX_DEPTH)
                st = event_fail(err, path, &ev.start_mark,
                                "nesting deeper than %s levels is not allowed", "64");
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: depth--; break;
        default: break;
        }
        if (st == PE_OK && tag) {
            char shown[128];
            if (strncmp(tag, YAML_TAG_PREFIX, strlen(YAML_TAG_PREFIX)) == 0)
                snprintf(shown, sizeof shown, "!!%s", tag + strlen(YAML_TAG_PREFIX));
            else
                snprintf(shown, sizeof shown, "%s", tag);
            st = event_fail(err, path, &ev.start_mark,
                            "explicit tags such as '%s' are not allowed; write the value "
                            "plainly (quote it to make it a string)",
                            shown);
        }
        yaml_event_delete(&ev);
    }
    if (st == PE_OK && documents == 0)
        st = pe_fail(err, PE_BAD_INPUT, path, 1, 1, "the file is empty (no YAML document)");
    yaml_parser_delete(&p);
    return st;
}

static size_t child_count(const yaml_node_t *n)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (n->type == YAML_MAPPING_NODE)
        return 2 * (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    return 0;
}

static int child_id(const yaml_node_t *n, size_t i)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return n->data.sequence.items.start[i];
    const yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i / 2];
    return i % 2 ? pr->value : pr->key;
}

typedef struct {
    int id;         /* node id (1-based) */
    size_t next;    /* next child to visit */
    uint64_t count; /* nodes so far, after expansion, itself included */
    int height;     /* collection levels so far, itself included */
} exp_frame;

/* Pass 2: nodes after alias expansion and nesting depth, counted over the
 * document graph with a memo per node, so a "billion laughs" file costs one
 * visit per distinct node (docs/scenarios.md: refused quickly). Iterative, with
 * an explicit stack of at most 64 collections. */
static pe_status check_expansion(const pe_ydoc *d, pe_error *err)
{
    yaml_node_t *root = ydoc_root(d);
    size_t n = (size_t)(d->doc.nodes.top - d->doc.nodes.start);
    if (!root || root->type == YAML_SCALAR_NODE)
        return PE_OK;
    uint32_t *count = calloc(n + 1, sizeof *count);
    uint8_t *height = calloc(n + 1, 1), *state = calloc(n + 1, 1); /* 1 open, 2 done */
    pe_status st = PE_OK;
    if (!count || !height || !state) {
        st = pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
        goto out;
    }
    exp_frame stack[PE_YAML_MAX_DEPTH];
    int sp = 0;
    stack[sp].id = 1; /* the root is node 1 */
    stack[sp].next = 0;
    stack[sp].count = 1;
    stack[sp].height = 1;
    sp++;
    state[1] = 1;
    while (sp > 0 && st == PE_OK) {
        exp_frame *f = &stack[sp - 1];
        const yaml_node_t *node = ydoc_node(d, f->id);
        if (f->next < child_count(node)) {
            int c = child_id(node, f->next++);
            const yaml_node_t *cn = ydoc_node(d, c);
            if (cn->type == YAML_SCALAR_NODE) {
                f->count += 1;
            } else if (state[c] == 2) {
                f->count += count[c];
                if (sp + height[c] > PE_YAML_MAX_DEPTH)
                    st = y_fail(err, d, cn,
                                "nesting deeper than 64 levels is not allowed (after alias "
                                "expansion)");
                if (1 + height[c] > f->height)
                    f->height = 1 + height[c];
            } else if (state[c] == 1) {
                st = y_fail(err, d, cn, "an alias refers to a collection that contains it");
            } else if (sp == PE_YAML_MAX_DEPTH) {
                st = y_fail(err, d, cn, "nesting deeper than 64 levels is not allowed");
            } else {
                state[c] = 1;
                stack[sp].id = c;
                stack[sp].next = 0;
                stack[sp].count = 1;
                stack[sp].height = 1;
                sp++;
                continue;
            }
            if (st == PE_OK && f->count > PE_YAML_MAX_NODES)
                st = y_fail(err, d, node,
                            "more than 100000 YAML nodes after alias expansion (a \"billion "
                            "laughs\" file?); write the values out or make the file smaller");
        } else {
            count[f->id] = (uint32_t)f->count;
            height[f->id] = (uint8_t)f->height;
            state[f->id] = 2;
            sp--;
            if (sp > 0) {
                exp_frame *parent = &stack[sp - 1];
                parent->count += f->count;
                if (1 + f->height > parent->height)
                    parent->height = 1 + f->height;
                if (parent->count > PE_YAML_MAX_NODES)
                    st = y_fail(err, d, ydoc_node(d, parent->id),
                                "more than 100000 YAML nodes after alias expansion (a \"billion "
                                "laughs\" file?); write the values out or make the file "
                                "smaller");
            }
        }
    }
out:
    free(count);
    free(height);
    free(state);
    return st;
}

static pe_status refuse_ambiguous(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                                  pe_error *err)
{
    const char *t = y_text(n);
    size_t len = y_len(n);
    ambiguity a = classify_ambiguous(t, len);
    if (a == AMB_NONE)
        return PE_OK;
    char q[96], pb[PE_YPATH_MAX + 4];
    y_quote(t, len, q, sizeof q);
    const char *p = pfx(path, pb, sizeof pb);
    switch (a) {
    case AMB_BOOL11: /* a string in YAML 1.2: an error only where a boolean is expected */
        return PE_OK;
    case AMB_INF_NAN:
        return y_fail(err, d, n, "%s%s is not allowed: write a finite number", p, q);
    case AMB_HEX:
        return y_fail(err, d, n,
                      "%shexadecimal %s is not allowed: write the number in decimal, or quote "
                      "it if you mean the text",
                      p, q);
    case AMB_OCTAL:
    case AMB_BINARY:
        return y_fail(err, d, n,
                      "%s%s %s is not allowed: write the number in decimal, or quote it if you "
                      "mean the text",
                      p, a == AMB_OCTAL ? "octal" : "binary", q);
    case AMB_LEADING_ZERO:
        return y_fail(err, d, n,
                      "%s%s has a leading zero (YAML 1.1 reads it as octal): write it without "
                      "leading zeros, or quote it if you mean the text",
                      p, q);
    case AMB_UNDERSCORE:
        return y_fail(err, d, n,
                      "%s%s uses '_' digit separators, which YAML 1.2 reads as text: write the "
                      "digits only, or quote it if you mean the text",
                      p, q);
    case AMB_SEXAGESIMAL:
        return y_fail(err, d, n,
                      "%s%s is a YAML 1.1 base-60 number: quote it if you mean the text", p, q);
    case AMB_NONE: break;
    }
    return PE_OK;
}

typedef struct {
    const char *text;
    size_t len;
    size_t index;
} keyref;

static int keyref_cmp(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, m);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static pe_status check_duplicates(const pe_ydoc *d, const yaml_node_t *m, const char *path,
                                  pe_error *err)
{
    const yaml_node_pair_t *pairs = m->data.mapping.pairs.start;
    size_t k = (size_t)(m->data.mapping.pairs.top - pairs);
    size_t dup = SIZE_MAX, first = 0; /* the earliest second occurrence of a key */
    if (k <= 32) {
        for (size_t j = 1; j < k && dup == SIZE_MAX; j++) {
            const yaml_node_t *kj = ydoc_node(d, pairs[j].key);
            for (size_t i = 0; i < j; i++) {
                const yaml_node_t *ki = ydoc_node(d, pairs[i].key);
                if (y_len(ki) == y_len(kj) && memcmp(y_text(ki), y_text(kj), y_len(kj)) == 0) {
                    dup = j;
                    first = i;
                    break;
                }
            }
        }
    } else {
        /* Large mappings (a catalog with many entries): sort, O(k log k). */
        keyref *refs = malloc(k * sizeof *refs);
        if (!refs)
            return pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
        for (size_t i = 0; i < k; i++) {
            const yaml_node_t *kn = ydoc_node(d, pairs[i].key);
            refs[i] = (keyref){y_text(kn), y_len(kn), i};
        }
        qsort(refs, k, sizeof *refs, keyref_cmp);
        for (size_t i = 1; i < k; i++)
            if (refs[i].len == refs[i - 1].len &&
                memcmp(refs[i].text, refs[i - 1].text, refs[i].len) == 0 &&
                (i < 2 || refs[i - 2].len != refs[i].len ||
                 memcmp(refs[i - 2].text, refs[i].text, refs[i].len) != 0) &&
                refs[i].index < dup) {
                dup = refs[i].index;
                first = refs[i - 1].index;
            }
        free(refs);
    }
    if (dup == SIZE_MAX)
        return PE_OK;
    const yaml_node_t *kn = ydoc_node(d, pairs[dup].key);
    char q[96];
    y_quote(y_text(kn), y_len(kn), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    if (path[0])
        return y_fail(err, d, kn, "duplicate key %s in %s (first given at line %d)", q, path,
                      y_line(ydoc_node(d, pairs[first].key)));
    return y_fail(err, d, kn, "duplicate key %s (first given at line %d)", q,
                  y_line(ydoc_node(d, pairs[first].key)));
}

/* Record err's error in errs (PE_BAD_INPUT) and go on; PE_INTERNAL stops. */
static pe_status note(pe_error_list *errs, pe_error *err, pe_status st)
{
    if (st == PE_BAD_INPUT && pe_errors_add(errs, err) != PE_OK)
        return pe_fail(err, PE_INTERNAL, err->file, 0, 0, "out of memory");
    return st == PE_INTERNAL ? st : PE_OK;
}

/* The keys of mapping n: text, not null, no merge keys, no NUL, no
 * duplicates. */
static pe_status check_keys(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                            pe_error *err, pe_error_list *errs)
{
    const yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
    size_t k = (size_t)(n->data.mapping.pairs.top - pairs);
    pe_status st = PE_OK;
    for (size_t i = 0; i < k && st == PE_OK; i++) {
        const yaml_node_t *key = ydoc_node(d, pairs[i].key);
        char desc[128];
        const char *in = path[0] ? " in " : "";
        pe_status ks = PE_OK;
        if (key->type != YAML_SCALAR_NODE) {
            y_describe(key, desc, sizeof desc);
            ks = y_fail(err, d, key, "a key must be text, got %s%s%s", desc, in, path);
        } else if (y_kind(key) == PE_Y_NULL) {
            ks = y_fail(err, d, key, "a key must be text, got null%s%s", in, path);
        } else if (y_is_plain_word(key, "<<")) {
            ks = y_fail(err, d, key,
                        "merge keys (<<) are not supported%s%s: write the keys out (anchors "
                        "and aliases of whole values are fine)",
                        in, path);
        } else if (memchr(y_text(key), '\0', y_len(key))) {
            ks = y_fail(err, d, key, "a key contains a NUL character");
        }
        st = note(errs, err, ks);
    }
    return st == PE_OK ? note(errs, err, check_duplicates(d, n, path, err)) : st;
}

/* Pass 3, recursive (depth <= 64 is guaranteed by pass 2): keys are
 * non-null text, no merge keys, no duplicate keys, and (with `values`) no
 * YAML 1.1 look-alikes among the values. Every such mistake of the file is
 * recorded in errs; a node reached again through an alias is not checked
 * (nor reported) twice (seen: one flag per node). */
static pe_status check_structure(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                                 bool values, pe_error *err, pe_error_list *errs,
                                 unsigned char *seen)
{
    char sub[PE_YPATH_MAX];
    size_t id = (size_t)(n - d->doc.nodes.start);
    if (seen[id])
        return PE_OK;
    seen[id] = 1;
    if (n->type == YAML_SCALAR_NODE)
        return is_plain(n) && values ? note(errs, err, refuse_ambiguous(d, n, path, err)) : PE_OK;
    pe_status st = PE_OK;
    if (n->type == YAML_SEQUENCE_NODE) {
        size_t k = child_count(n);
        for (size_t i = 0; i < k && st == PE_OK; i++) {
            y_path_index(sub, path, i);
            st = check_structure(d, ydoc_node(d, child_id(n, i)), sub, values, err, errs, seen);
        }
        return st;
    }
    st = check_keys(d, n, path, err, errs);
    const yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
    size_t k = (size_t)(n->data.mapping.pairs.top - pairs);
    for (size_t i = 0; i < k && st == PE_OK; i++) {
        const yaml_node_t *key = ydoc_node(d, pairs[i].key);
        char kq[PE_YPATH_MAX];
        snprintf(kq, sizeof kq, "%.*s", (int)(y_len(key) > 200 ? 200 : y_len(key)),
                 y_text(key));
        y_path(sub, path, kq);
        st = check_structure(d, ydoc_node(d, pairs[i].value), sub, values, err, errs, seen);
    }
    return st;
}

/* Pass 3 over the subtree at n: every mistake packed into err. */
static pe_status check_subtree(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                               bool values, pe_error *err)
{
    pe_error_list errs = {0};
    unsigned char *seen = calloc((size_t)(d->doc.nodes.top - d->doc.nodes.start), 1);
    pe_status st;
    if (!seen)
        st = pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
    else
        st = check_structure(d, n, path, values, err, &errs, seen);
    if (st == PE_OK)
        st = pe_errors_pack(&errs, err); /* every mistake of the file */
    else
        pe_errors_free(&errs);
    free(seen);
    return st;
}

static pe_status parse_document(pe_ydoc *d, const char *path, const char *data, size_t size,
                                bool check_values, pe_error *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    /* A UTF-8 byte-order mark is legal YAML (1.2 §5.2); libyaml, told the
     * encoding is UTF-8, would read it as content. It is zero-width, so
     * positions after it are unchanged. */
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        size -= 3;
    }
    if (size > PE_YAML_MAX_FILE)
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "the file is too large (%zu bytes; at most %u)",
                       size, PE_YAML_MAX_FILE);
    pe_status st = scan_events(d->path, data, size, err);
    if (st)
        return st;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)data, size);
    yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
    if (!yaml_parser_load(&p, &d->doc)) {
        st = parser_error(&p, d->path, data, size, err); /* e.g. an undefined alias */
        yaml_parser_delete(&p);
        return st;
    }
    yaml_parser_delete(&p);
    d->loaded = true;
    if (!ydoc_root(d)) {
        ydoc_free(d);
        return pe_fail(err, PE_BAD_INPUT, path, 1, 1, "the file is empty (no YAML document)");
    }
    st = check_expansion(d, err);
    if (!st)
        st = check_subtree(d, ydoc_root(d), "", check_values, err);
    if (st)
        ydoc_free(d);
    return st;
}

pe_status ydoc_parse(pe_ydoc *d, const char *path, const char *data, size_t size, pe_error *err)
{
    return parse_document(d, path, data, size, true, err);
}

pe_status ydoc_parse_unchecked_values(pe_ydoc *d, const char *path, const char *data,
                                      size_t size, pe_error *err)
{
    return parse_document(d, path, data, size, false, err);
}

pe_status y_check_values(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                         pe_error *err)
{
    return check_subtree(d, n, path, true, err);
}

pe_status pe_read_file(const char *path, char **data, size_t *size, pe_error *err)
{
    *data = NULL;
    *size = 0;
    struct stat sb;
    FILE *f;
    pe_status opened = regular_file_open(path, &f, &sb, err);
    if (opened != PE_OK)
        return opened;
    if ((unsigned long long)sb.st_size > PE_YAML_MAX_FILE) {
        fclose(f);
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "the file is too large (%lld bytes; at most %u)", (long long)sb.st_size,
                       PE_YAML_MAX_FILE);
    }
    size_t cap = (size_t)sb.st_size + 1, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
    }
    for (;;) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                fclose(f);
                return pe_fail(err, PE_INTERNAL, path, 0, 0, "read error: %s", strerror(e));
            }
            break; /* end of file */
        }
        /* The file grew while we read it: keep going, up to the limit. */
        if (cap >= PE_YAML_MAX_FILE) {
            free(buf);
            fclose(f);
            return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "the file is too large (at most %u bytes)",
                           PE_YAML_MAX_FILE);
        }
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            fclose(f);
            return pe_fail(err, PE_INTERNAL, path, 0, 0, "out of memory");
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return PE_OK;
}

/* ================================================================ typed getters */

yaml_node_t *y_map_get(const pe_ydoc *d, const yaml_node_t *m, const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (const yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = ydoc_node(d, p->key);
        if (text_is(y_text(k), y_len(k), key))
            return ydoc_node(d, p->value);
    }
    return NULL;
}

static pe_status wrong_type(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                            const char *expected, pe_error *err)
{
    char desc[128], pb[PE_YPATH_MAX + 4];
    y_describe(n, desc, sizeof desc);
    return y_fail(err, d, n, "%sexpected %s, got %s", pfx(path, pb, sizeof pb), expected, desc);
}

pe_status y_want_map(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_error *err)
{
    return n->type == YAML_MAPPING_NODE ? PE_OK : wrong_type(d, n, path, "a mapping", err);
}

pe_status y_want_seq(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_error *err)
{
    return n->type == YAML_SEQUENCE_NODE ? PE_OK : wrong_type(d, n, path, "a list", err);
}

static pe_status out_of_range(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                              pe_range r, pe_error *err)
{
    char q[96];
    y_quote(y_text(n), y_len(n), q, sizeof q);
    /* the number as written, without the quotes */
    memmove(q, q + 1, strlen(q));
    q[strlen(q) - 1] = '\0';
    return y_fail(err, d, n, "%s must be %s, got %s", path, fields_range_text(r), q);
}

pe_status y_get_int(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_range r,
                    int64_t *out, pe_error *err)
{
    if (y_kind(n) != PE_Y_INT)
        return wrong_type(d, n, path, "an integer", err);
    errno = 0;
    long long v = strtoll(y_text(n), NULL, 10);
    bool too_big = errno == ERANGE || v > PE_INT_MAX || v < -PE_INT_MAX;
    /* above 2^53 is its own message below (the range's text says ">= 1") */
    if (!fields_in_range(r, (double)v) && !(too_big && v > 0 && r != PE_RANGE_ZERO))
        return out_of_range(d, n, path, r, err);
    if (too_big)
        return y_fail(err, d, n, "%s must be at most 2^53 (9007199254740992), got %s", path,
                      y_text(n));
    *out = (int64_t)v;
    return PE_OK;
}

pe_status y_get_number(const pe_ydoc *d, const yaml_node_t *n, const char *path, pe_range r,
                       double *out, pe_error *err)
{
    pe_ykind k = y_kind(n);
    if (k != PE_Y_INT && k != PE_Y_FLOAT)
        return wrong_type(d, n, path, "a number", err);
    double v = strtod(y_text(n), NULL);
    if (!isfinite(v))
        return y_fail(err, d, n, "%s: %s is too large for a number", path, y_text(n));
    /* every number key's range is bounded (core/fields.c), so no value the
     * loader takes can make a time, rate or size infinite */
    bool ok = fields_in_range(r, v);
    if (!ok)
        return out_of_range(d, n, path, r, err);
    *out = v;
    return PE_OK;
}

pe_status y_get_bool(const pe_ydoc *d, const yaml_node_t *n, const char *path, bool *out,
                     pe_error *err)
{
    if (is_plain(n) && classify_ambiguous(y_text(n), y_len(n)) == AMB_BOOL11) {
        /* YAML 1.1's yes/no/on/off/y/n: a string in YAML 1.2 */
        const char c = (char)tolower((unsigned char)y_text(n)[0]);
        const bool yes = c == 'y' || (c == 'o' && y_len(n) == 2);
        char q[96], pb[PE_YPATH_MAX + 4];
        y_quote(y_text(n), y_len(n), q, sizeof q);
        return y_fail(err, d, n, "%s%s is not a boolean in YAML 1.2: write %s",
                      pfx(path, pb, sizeof pb), q, yes ? "true" : "false");
    }
    if (y_kind(n) != PE_Y_BOOL)
        return wrong_type(d, n, path, "true or false", err);
    *out = y_text(n)[0] == 't' || y_text(n)[0] == 'T';
    return PE_OK;
}

pe_status y_get_enum(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                     const char *const *values, int *out, pe_error *err)
{
    char list[256] = "";
    size_t count = 0;
    for (; values[count]; count++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", count ? ", " : "", values[count]);
    }
    if (!y_is_string(n)) {
        char exp[300];
        snprintf(exp, sizeof exp, "one of %s", list);
        return wrong_type(d, n, path, exp, err);
    }
    const char *t = y_text(n);
    size_t len = y_len(n);
    for (size_t i = 0; i < count; i++)
        if (text_is(t, len, values[i])) {
            *out = (int)i;
            return PE_OK;
        }
    char q[96];
    y_quote(t, len, q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    const char *s = y_suggest(t, len, values, count);
    if (s)
        return y_fail(err, d, n, "%s: unknown value %s (did you mean '%s'?)", path, q, s);
    return y_fail(err, d, n, "%s: unknown value %s; expected one of %s", path, q, list);
}

pe_status y_get_label(const pe_ydoc *d, const yaml_node_t *n, const char *path, char *buf,
                      size_t max, pe_error *err)
{
    if (!y_is_string(n))
        return wrong_type(d, n, path, "a string", err);
    size_t len = y_len(n);
    if (len == 0)
        return y_fail(err, d, n, "%s must not be empty", path);
    if (len >= max)
        return y_fail(err, d, n, "%s is too long (%zu bytes; at most %zu)", path, len, max - 1);
    if (memchr(y_text(n), '\0', len))
        return y_fail(err, d, n, "%s contains a NUL character", path);
    memcpy(buf, y_text(n), len);
    buf[len] = '\0';
    return PE_OK;
}

pe_status y_get_name(const pe_ydoc *d, const yaml_node_t *n, const char *path, char *buf,
                     size_t max, pe_error *err)
{
    pe_status st = y_get_label(d, n, path, buf, max, err);
    /* names go into report cells, file names and one-line messages: no
     * control characters (a newline would split a message or a row) */
    for (size_t i = 0; st == PE_OK && buf[i]; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c < 0x20 || c == 0x7f)
            st = y_fail(err, d, n, "%s contains a control character (byte 0x%02x at %zu)", path,
                        c, i + 1);
    }
    return st;
}

pe_status y_get_text(const pe_ydoc *d, const yaml_node_t *n, const char *path, char **out,
                     pe_error *err)
{
    if (!y_is_string(n))
        return wrong_type(d, n, path, "a string", err);
    size_t len = y_len(n);
    if (memchr(y_text(n), '\0', len))
        return y_fail(err, d, n, "%s contains a NUL character", path);
    char *s = malloc(len + 1);
    if (!s)
        return pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
    memcpy(s, y_text(n), len);
    s[len] = '\0';
    *out = s;
    return PE_OK;
}

/* A list given for a scenario key a sweep can vary (docs/sweeps.md
 * "Sweeping the design"): say where a list of values goes. */
static pe_status list_for_design_key(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                                     pe_error *err)
{
    static const char *const keys[][3] = {
        {"cluster.nodes", "nodes", "an integer"},
        {"training.global_batch", "global_batch", "an integer"},
        {"model.seq_len", "seq_len", "an integer"},
        {"cluster.intra_node.bandwidth_gb_s", "intra_node.bandwidth_gb_s", "a number"},
        {"cluster.intra_node.link_gb_s", "intra_node.link_gb_s", "a number"},
        {"cluster.intra_node.latency_us", "intra_node.latency_us", "a number"},
        {"cluster.inter_node.nic_gb_s", "inter_node.nic_gb_s", "a number"},
        {"cluster.inter_node.latency_us", "inter_node.latency_us", "a number"}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(path, keys[i][0]) == 0)
            return y_fail(err, d, n,
                          "%s: expected %s, got a list (to compare several values, "
                          "list them as sweep.%s and leave %s out)",
                          path, keys[i][2], keys[i][1], path);
    return PE_OK;
}

pe_status y_get_field(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                      const pe_field *f, int64_t *ival, double *dval, pe_error *err)
{
    pe_status st = PE_OK;
    if (n->type == YAML_SEQUENCE_NODE && (st = list_for_design_key(d, n, path, err)) != PE_OK)
        return st;
    switch (f->type) {
    case PE_FT_INT: return y_get_int(d, n, path, f->range, ival, err);
    case PE_FT_NUMBER: return y_get_number(d, n, path, f->range, dval, err);
    case PE_FT_BOOL: {
        bool b = false;
        st = y_get_bool(d, n, path, &b, err);
        *ival = b;
        return st;
    }
    case PE_FT_ENUM: {
        int e = 0;
        st = y_get_enum(d, n, path, f->enum_values, &e, err);
        *ival = e;
        return st;
    }
    default: break;
    }
    return pe_fail(err, PE_INTERNAL, d->path, y_line(n), y_col(n), "%s: not a scalar field", path);
}

/* ================================================================ y_apply */

static void store(void *base, const pe_field *f, int64_t iv, double dv)
{
    fields_store(base, f, iv, dv);
    if (f->has_offset != PE_NO_OFFSET) {
        bool t = true;
        memcpy((char *)base + f->has_offset, &t, sizeof t);
    }
}

static bool stored_by_apply(const pe_field *f)
{
    return f->offset != PE_NO_OFFSET && !(f->flags & (PE_F_AUTO | PE_F_LOADER)) &&
           (f->type == PE_FT_INT || f->type == PE_FT_NUMBER || f->type == PE_FT_BOOL ||
            f->type == PE_FT_ENUM);
}

size_t y_field_index(const pe_fieldset *set, const char *key)
{
    const pe_field *f = fields_find(set, key, strlen(key));
    return f ? (size_t)(f - set->fields) : 0;
}

static const pe_fieldset *const scenario_sets[] = {
    &pe_fields_scenario, &pe_fields_model,      &pe_fields_precision, &pe_fields_cluster,
    &pe_fields_gpu,      &pe_fields_intra_node, &pe_fields_inter_node, &pe_fields_training,
    &pe_fields_budgets,  &pe_fields_overlap,    &pe_fields_plan,      &pe_fields_sweep};

/* Is set one of a scenario file's mappings? */
static bool in_scenario(const pe_fieldset *set)
{
    for (size_t i = 0; i < sizeof scenario_sets / sizeof scenario_sets[0]; i++)
        if (scenario_sets[i] == set)
            return true;
    return false;
}

void y_key_places(const pe_fieldset *set, const char *key, size_t len, char *buf, size_t size)
{
    const size_t n_places = sizeof scenario_sets / sizeof scenario_sets[0];
    buf[0] = '\0';
    if (!in_scenario(set))
        return;
    const char *found[4];
    size_t nf = 0;
    for (size_t i = 0; i < n_places && nf < 4; i++)
        if (scenario_sets[i] != set && fields_find(scenario_sets[i], key, len))
            found[nf++] = scenario_sets[i]->path[0] ? scenario_sets[i]->path : "the top level";
    for (size_t i = 0; i < nf && i < 3; i++) {
        size_t used = strlen(buf);
        const char *sep = i == 0 ? "" : (i + 1 == nf || i == 2) ? " or " : ", ";
        snprintf(buf + used, size - used, "%s%s", sep, found[i]);
    }
}

/* "unknown key 'k' in path" with a hint: the section the key belongs to,
 * else the closest key of this mapping. */
static pe_status unknown_key(const pe_fieldset *set, const pe_ydoc *d, const yaml_node_t *k,
                             const char *path, pe_error *err)
{
    const char *keys[PE_MAX_FIELDS];
    for (size_t i = 0; i < set->count; i++)
        keys[i] = set->fields[i].key;
    char q[96], where[160], hint[PE_YPATH_MAX + 200] = "";
    y_quote(y_text(k), y_len(k), q, sizeof q);
    q[0] = q[strlen(q) - 1] = '\'';
    y_key_places(set, y_text(k), y_len(k), where, sizeof where);
    const char *sug = y_suggest(y_text(k), y_len(k), keys, set->count);
    if (where[0])
        snprintf(hint, sizeof hint, " (%s belongs under %s)", q, where);
    else if (sug)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
    else if (in_scenario(set))
        snprintf(hint, sizeof hint, " (docs/scenarios.md lists the keys)");
    if (path[0])
        return y_fail(err, d, k, "unknown key %s in %s%s", q, path, hint);
    return y_fail(err, d, k, "unknown key %s%s", q, hint);
}

/* One key of layer l: recorded in *st; typed and stored when y_apply stores it. */
static pe_status apply_key(const pe_fieldset *set, const pe_ydoc *d, const yaml_node_pair_t *p,
                           int l, const char *path, void *base, pe_applied *st, pe_error *err)
{
    const yaml_node_t *k = ydoc_node(d, p->key), *v = ydoc_node(d, p->value);
    const pe_field *f = fields_find(set, y_text(k), y_len(k));
    if (!f)
        return unknown_key(set, d, k, path, err);
    size_t i = (size_t)(f - set->fields);
    st->set[i] = true;
    st->layer[i] = l;
    st->key[i] = k;
    st->value[i] = v;
    st->per_layer[i][l] = v;
    st->per_layer_key[i][l] = k;
    if (!stored_by_apply(f))
        return PE_OK;
    char fp[PE_YPATH_MAX];
    int64_t iv = 0;
    double dv = 0;
    y_path(fp, path, f->key);
    pe_status s = y_get_field(d, v, fp, f, &iv, &dv, err);
    if (!s)
        store(base, f, iv, dv);
    return s;
}

pe_status y_apply(const pe_fieldset *set, const pe_layer *layers, size_t n, const char *path,
                  void *base, pe_applied *st, pe_error *err)
{
    return y_apply_all(set, layers, n, path, base, st, err, NULL);
}

pe_status y_apply_all(const pe_fieldset *set, const pe_layer *layers, size_t n, const char *path,
                      void *base, pe_applied *st, pe_error *err, pe_error_list *errs)
{
    memset(st, 0, sizeof *st);
    if (set->count > PE_MAX_FIELDS || n > PE_MAX_LAYERS)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "y_apply: table too large");
    pe_status worst = PE_OK;
    for (size_t l = 0; l < n; l++) {
        const pe_ydoc *d = layers[l].doc;
        const yaml_node_t *m = layers[l].node;
        if (!m)
            continue;
        pe_status s = y_want_map(d, m, path, err);
        for (const yaml_node_pair_t *p = m->data.mapping.pairs.start;
             !s && p < m->data.mapping.pairs.top; p++) {
            s = apply_key(set, d, p, (int)l, path, base, st, err);
            if (s == PE_BAD_INPUT && errs) {
                /* keep it and go on with the next key */
                if (pe_errors_add(errs, err) != PE_OK)
                    return pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
                worst = PE_BAD_INPUT;
                s = PE_OK;
            }
        }
        if (s == PE_BAD_INPUT && errs) { /* the layer is not a mapping */
            if (pe_errors_add(errs, err) != PE_OK)
                return pe_fail(err, PE_INTERNAL, d->path, 0, 0, "out of memory");
            worst = PE_BAD_INPUT;
        } else if (s) {
            return s;
        }
    }
    return worst;
}

pe_status y_check_topology(const pe_layer *layers, const char *path, pe_intra_node *in,
                           pe_applied *st, pe_error *err)
{
    const pe_fieldset *set = &pe_fields_intra_node;
    size_t ti = y_field_index(set, "topology");
    if (!st->set[ti])
        return PE_OK; /* no topology: a partial preset, or reported as missing */
    unsigned mine = in->topology == PE_TOPOLOGY_SWITCH ? PE_F_SWITCH : PE_F_FULL_MESH;
    for (size_t i = 0; i < set->count; i++) {
        const pe_field *f = &set->fields[i];
        if (!(f->flags & (PE_F_SWITCH | PE_F_FULL_MESH)) || (f->flags & mine) || !st->set[i])
            continue;
        for (int l = st->layer[ti]; l < PE_MAX_LAYERS; l++) {
            const yaml_node_t *k = st->per_layer_key[i][l];
            if (k)
                return y_fail(err, layers[l].doc, k,
                              "'%s' is a key of topology %s, but %s.topology is %s", f->key,
                              (f->flags & PE_F_SWITCH) ? "switch" : "full_mesh", path,
                              pe_topology_name(in->topology));
        }
        /* Only a preset below the layer that chose the topology gave it:
         * that preset's other-topology keys no longer apply. */
        st->set[i] = false;
        memset((char *)in + f->offset, 0, f->type == PE_FT_INT ? sizeof(int64_t) : sizeof(double));
    }
    return PE_OK;
}

pe_status y_get_enum_list(const pe_ydoc *d, const yaml_node_t *n, const char *path,
                          const char *const *values, int *out, size_t max, size_t *count,
                          pe_error *err)
{
    *count = 0;
    if (n->type != YAML_SEQUENCE_NODE)
        return y_get_enum(d, n, path, values, &out[(*count)++], err);
    size_t items = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (items == 0)
        return y_fail(err, d, n, "%s: empty list; give at least one value", path);
    for (size_t i = 0; i < items; i++) {
        const yaml_node_t *item = ydoc_node(d, n->data.sequence.items.start[i]);
        char ip[PE_YPATH_MAX];
        y_path_index(ip, path, i);
        int v = 0;
        pe_status st = y_get_enum(d, item, ip, values, &v, err);
        if (st)
            return st;
        for (size_t j = 0; j < *count; j++)
            if (out[j] == v)
                return y_fail(err, d, item, "%s: '%s' is listed twice (each key at most once)",
                              ip, values[v]);
        if (*count == max) /* cannot happen without a repeat: max is the enum's size */
            return y_fail(err, d, item, "%s: more than %zu values", ip, max);
        out[(*count)++] = v;
    }
    return PE_OK;
}
