/* grade_read.c — reading a submission (grade.h): untrusted YAML parsed
 * with the loader's limits (yamlutil.h), a plan answer as a name, a
 * canonical text or a mapping of plan keys, the student id, and the list
 * of students already graded. */
#define _XOPEN_SOURCE 700 /* realpath: POSIX's XSI part */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade/grade_internal.h"

/* ================================================================ plans */

bool grade_parse_canonical(const char *text, const pe_overlap *overlap, pe_plan *out)
{
    pe_error why;
    return canonical_parse(text, overlap, out, &why) == PE_OK;
}

/* A plan answer written as text: an explicit plan's name, else a
 * canonical text with the drill's overlap. */
static pe_status read_plan_text(const pe_scenario *s, const pe_ydoc *d, const yaml_node_t *n,
                                const char *path, pe_plan *out, char *shown, size_t shown_size,
                                pe_error *err)
{
    char text[PE_NAME_MAX];
    pe_status st = y_get_label(d, n, path, text, sizeof text, err);
    if (st)
        return st;
    for (size_t i = 0; i < s->plan_count; i++)
        if (strcmp(s->plans[i].name, text) == 0) {
            *out = s->plans[i]; /* as the drill defines it, overlap included */
            grade_show_plan(out, text, shown, shown_size);
            return PE_OK;
        }
    pe_error why;
    if (canonical_parse(text, &s->overlap, out, &why) == PE_OK) {
        grade_show_plan(out, NULL, shown, shown_size);
        return PE_OK;
    }
    char q[96];
    y_quote(text, strlen(text), q, sizeof q);
    return y_fail(err, d, n,
                  "%s: %s is not a plan (%s): write the canonical text "
                  "dp{dp}-tp{t}-pp{p}-cp{c}-z{z}-{recompute}-mb{b}-{schedule}-v{v}-sp{0|1} "
                  "(e.g. dp8-tp8-pp1-cp1-z1-none-mb1-1f1b-v1-sp1) or a mapping of plan keys",
                  path, q, why.msg);
}

/* dp: auto (N/(tp*pp*cp), which must be whole) or a whole number. */
static pe_status read_plan_dp(const pe_scenario *s, const pe_ydoc *d, const yaml_node_t *dpn,
                              const char *path, pe_plan *p, pe_error *err)
{
    char fp[PE_YPATH_MAX];
    y_path(fp, path, "dp");
    if (!y_is_plain_word(dpn, "auto"))
        return y_get_int(d, dpn, fp, PE_RANGE_WHOLE, &p->dp, err);
    int64_t N = s->cluster.nodes * s->cluster.gpus_per_node, prod = 1;
    const int64_t f[3] = {p->tp, p->pp, p->cp};
    bool whole = true;
    for (int i = 0; i < 3 && whole; i++) {
        if (f[i] > N / prod)
            whole = false;
        else
            prod *= f[i];
    }
    if (!whole || N % prod != 0)
        return y_fail(err, d, dpn,
                      "%s: auto needs N/(tp*pp*cp) to be whole, but N = %lld GPUs and "
                      "tp*pp*cp = %lld*%lld*%lld",
                      fp, (long long)N, (long long)p->tp, (long long)p->pp, (long long)p->cp);
    p->dp = N / prod;
    return PE_OK;
}

/* A plan answer written as a mapping of plan keys (docs/scenarios.md "Plans":
 * the defaults; dp required; no name, no overlap). */
static pe_status read_plan_mapping(const pe_scenario *s, const pe_ydoc *d, const yaml_node_t *n,
                                   const char *path, pe_plan *out, pe_error *err)
{
    pe_plan p;
    memset(&p, 0, sizeof p);
    p.tp = p.pp = p.cp = 1; /* docs/scenarios.md "Plans": defaults */
    p.recompute = PE_RECOMPUTE_NONE;
    p.micro_batch = 1;
    p.schedule = PE_SCHEDULE_1F1B;
    p.virtual_stages = 1;
    p.overlap = s->overlap;
    pe_layer layer = {d, n};
    pe_applied a;
    pe_status st = y_apply(&pe_fields_plan, &layer, 1, path, &p, &a, err);
    if (st)
        return st;
    const char *fixed[] = {"name", "overlap"};
    for (size_t i = 0; i < 2; i++) {
        size_t fi = y_field_index(&pe_fields_plan, fixed[i]);
        if (a.set[fi])
            return y_fail(err, d, a.key[fi],
                          "%s: an answer's plan takes no %s (overlap is the drill's)", path,
                          fixed[i]);
    }
    size_t di = y_field_index(&pe_fields_plan, "dp");
    if (!a.set[di])
        return y_fail(err, d, n, "missing required key 'dp' in %s", path);
    if ((st = read_plan_dp(s, d, a.value[di], path, &p, err)))
        return st;
    if (!a.set[y_field_index(&pe_fields_plan, "sequence_parallel")])
        p.sequence_parallel = p.tp > 1; /* docs/model.md §0 */
    if (p.tp == 1)
        p.sequence_parallel = false;
    scenario_plan_defaults(&p); /* the MoE axes: ep 1, etp = tp */
    *out = p;
    return PE_OK;
}

pe_status grade_read_plan(const pe_scenario *s, const pe_ydoc *d, const yaml_node_t *n,
                          const char *path, pe_plan *out, char *shown, size_t shown_size,
                          pe_error *err)
{
    if (y_is_string(n))
        return read_plan_text(s, d, n, path, out, shown, shown_size, err);
    if (n->type != YAML_MAPPING_NODE) {
        char desc[128];
        y_describe(n, desc, sizeof desc);
        return y_fail(err, d, n,
                      "%s: expected a plan (canonical text or a mapping of plan keys), got %s",
                      path, desc);
    }
    pe_status st = read_plan_mapping(s, d, n, path, out, err);
    if (st)
        return st;
    grade_show_plan(out, NULL, shown, shown_size);
    return PE_OK;
}

/* What a node is, without its text: an error about a file that has not
 * shown itself a submission never quotes it (it may be any file). */
static const char *kind_text(const yaml_node_t *n)
{
    switch (y_kind(n)) {
    case PE_Y_MAP: return "a mapping";
    case PE_Y_SEQ: return "a list";
    case PE_Y_NULL: return "null";
    case PE_Y_BOOL: return "true or false";
    case PE_Y_INT:
    case PE_Y_FLOAT: return "a number";
    default: return "text";
    }
}

/* A message of the YAML layer about a file not yet known to be a
 * submission, with the file's text taken out: libyaml's own syntax errors
 * name no text of the file; an alias's name, a tag, a duplicate key or a
 * look-alike value quoted in any other message is replaced, from its first
 * quote to the message's last, by '...'. */
static void hide_file_text(pe_error *e)
{
    char *m = e->msg;
    if (strncmp(m, "YAML syntax error:", 18) == 0)
        return;
    if (strncmp(m, "alias *", 7) == 0) {
        snprintf(m, sizeof e->msg, "an alias (*) refers to no anchor: its anchor (&) must "
                                   "come before it");
        return;
    }
    char *first = strpbrk(m, "'\""), *last = NULL;
    for (char *c = first; c && *c; c++)
        if (*c == '\'' || *c == '"')
            last = c;
    if (!first || last == first)
        return;
    char tail[PE_MSG_MAX];
    snprintf(tail, sizeof tail, "%s", last + 1);
    snprintf(first, sizeof e->msg - (size_t)(first - m), "'...'%s", tail);
}

/* The student id: text, or a whole number written plainly. */
static pe_status read_student(const pe_ydoc *d, const yaml_node_t *n, char *buf, size_t size,
                              pe_error *err)
{
    bool plain_int = y_kind(n) == PE_Y_INT && y_text(n)[0] != '-' && y_text(n)[0] != '+';
    if (!plain_int && !y_is_string(n))
        return y_fail(err, d, n, "student: expected an id (text or a whole number), got %s",
                      kind_text(n));
    if (plain_int) {
        if (y_len(n) >= size)
            return y_fail(err, d, n, "student is too long (%zu bytes; at most %zu)", y_len(n),
                          size - 1);
        snprintf(buf, size, "%s", y_text(n));
        return PE_OK;
    }
    return y_get_label(d, n, "student", buf, size, err);
}

/* "little-endian" or "big-endian" when data is UTF-16 text: a byte-order
 * mark (FF FE, FE FF), or NUL bytes at every other place of the first
 * bytes (ASCII written as UTF-16 without a mark); NULL otherwise. */
static const char *utf16_byte_order(const char *data, size_t len)
{
    const unsigned char *b = (const unsigned char *)data;
    if (len >= 2 && b[0] == 0xFF && b[1] == 0xFE)
        return "little-endian";
    if (len >= 2 && b[0] == 0xFE && b[1] == 0xFF)
        return "big-endian";
    size_t n = len < 256 ? len & ~(size_t)1 : 256, nul[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        nul[i & 1] += b[i] == 0;
    if (n < 4 || (nul[0] && nul[1]))
        return NULL;
    if (nul[1] == n / 2)
        return "little-endian";
    return nul[0] == n / 2 ? "big-endian" : NULL;
}

/* Whether the real path of the file at path lies in the directory it was
 * given in (the directory part of path, as given, links in it followed). */
static bool inside_given_directory(const char *path)
{
    char dir[PE_PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
             slash ? path : ".");
    char *real_dir = realpath(dir, NULL), *real_file = realpath(path, NULL);
    size_t n = real_dir ? strlen(real_dir) : 0;
    bool inside = real_dir && real_file && n > 0 && strncmp(real_file, real_dir, n) == 0 &&
                  (real_dir[n - 1] == '/' || real_file[n] == '/');
    free(real_dir);
    free(real_file);
    return inside;
}

/* The bytes of the open regular file fd (st its fstat), at most
 * PE_YAML_MAX_FILE of them, NUL-terminated; *data is to be freed. */
static pe_status read_fd(int fd, const struct stat *st, const char *path, char **data,
                         size_t *len, pe_error *e)
{
    if ((unsigned long long)st->st_size > PE_YAML_MAX_FILE)
        return pe_fail(e, PE_BAD_INPUT, path, 0, 0, "the file is too large (%lld bytes; at most %u)",
                       (long long)st->st_size, PE_YAML_MAX_FILE);
    size_t cap = (size_t)st->st_size + 1;
    for (;;) {
        char *grown = realloc(*data, cap + 1);
        if (!grown)
            return pe_fail(e, PE_INTERNAL, path, 0, 0, "out of memory");
        *data = grown;
        ssize_t got = read(fd, *data + *len, cap - *len);
        if (got < 0 && errno != EINTR)
            return pe_fail(e, PE_INTERNAL, path, 0, 0, "read error: %s", strerror(errno));
        *len += got > 0 ? (size_t)got : 0;
        (*data)[*len] = '\0';
        if (got == 0)
            return PE_OK;
        if (*len > PE_YAML_MAX_FILE) /* it grew while we read it */
            return pe_fail(e, PE_BAD_INPUT, path, 0, 0, "the file is too large (at most %u bytes)",
                           PE_YAML_MAX_FILE);
        if (*len == cap)
            cap *= 2;
    }
}

/* The bytes of the submission at path, which must be a regular file, not
 * a symbolic link (a link would let a submission be any file the grader
 * can read: its text would reach the grades file), whose real path is in
 * the directory it was given in. Opened without following a link, so the
 * file checked is the file read. */
static pe_status read_regular_file(const char *path, char **data, size_t *len, pe_error *e)
{
    *data = NULL;
    *len = 0;
    struct stat ls, st;
    if (lstat(path, &ls) != 0)
        return pe_fail(e, PE_BAD_INPUT, path, 0, 0, "cannot read the file: %s", strerror(errno));
    if (S_ISLNK(ls.st_mode))
        return pe_fail(e, PE_BAD_INPUT, path, 0, 0,
                       "the file is a symbolic link: a submission is read only as a regular "
                       "file (copy the file itself into the submissions)");
    if (!S_ISREG(ls.st_mode))
        return pe_fail(e, PE_BAD_INPUT, path, 0, 0, "not a regular file");
    if (!inside_given_directory(path))
        return pe_fail(e, PE_BAD_INPUT, path, 0, 0,
                       "the file's real path is outside the directory it was given in");
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return pe_fail(e, PE_BAD_INPUT, path, 0, 0, "cannot read the file: %s", strerror(errno));
    pe_status r = fstat(fd, &st) != 0 ? pe_fail(e, PE_INTERNAL, path, 0, 0, "cannot read the file: %s",
                                                strerror(errno))
                  : !S_ISREG(st.st_mode) || st.st_ino != ls.st_ino || st.st_dev != ls.st_dev
                      ? pe_fail(e, PE_BAD_INPUT, path, 0, 0,
                                "the file was replaced while it was read: grade again")
                      : read_fd(fd, &st, path, data, len, e);
    close(fd);
    return r;
}

/* The file's bytes (*data, to be freed, even on failure), refused when
 * they are UTF-16 (libyaml would call it a bad UTF-8 byte or a NUL
 * character, which does not tell what to do). */
static pe_status read_submission_file(const char *path, char **data, size_t *len, pe_error *e)
{
    pe_status st = read_regular_file(path, data, len, e);
    const char *order = st == PE_OK ? utf16_byte_order(*data, *len) : NULL;
    if (order)
        st = pe_fail(e, PE_BAD_INPUT, path, 0, 0, "the file is UTF-16 (%s); save it as UTF-8",
                     order);
    return st;
}

/* The first line of data (after a UTF-8 byte-order mark) as text, into
 * line; a UTF-16 file's first line too, when it is ASCII. */
static void first_line(const char *data, size_t len, char *line, size_t size)
{
    const unsigned char *b = (const unsigned char *)data;
    const char *order = utf16_byte_order(data, len);
    size_t o = 0, i = 0, step = 1, lo = 0;
    if (order) {
        step = 2;
        lo = order[0] == 'l' ? 0 : 1; /* the byte of an ASCII code unit */
        i = len >= 2 && (b[0] == 0xFF || b[0] == 0xFE) && (b[1] == 0xFF || b[1] == 0xFE) ? 2 : 0;
    } else if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        i = 3;
    }
    for (; i + step <= len && o + 1 < size; i += step) {
        unsigned char c = b[i + lo];
        if (c == '\n' || c == '\r' || (step == 2 && b[i + 1 - lo] != 0))
            break;
        line[o++] = (char)c;
    }
    line[o] = '\0';
}

/* `student: ID` as the file's first line, read without a YAML parser (for
 * a file the parser refuses): a plain id up to a comment or the end of the
 * line, or one in quotes without escapes; "" when the line is not that. */
static void scan_student_line(const char *data, size_t len, char *student, size_t size)
{
    char line[PE_NAME_MAX + 64];
    first_line(data, len, line, sizeof line);
    student[0] = '\0';
    if (strncmp(line, "student:", 8) != 0 || (line[8] != ' ' && line[8] != '\t'))
        return;
    char *v = line + 8 + strspn(line + 8, " \t"), *end;
    if (*v == '"' || *v == '\'') {
        end = strchr(v + 1, *v);
        const char *after = end ? end + 1 + strspn(end + 1, " \t") : NULL;
        if (!end || memchr(v, '\\', (size_t)(end - v)) || (*after && *after != '#'))
            return;
        v++;
    } else {
        if (*v == '\0' || strchr("[]{}&*!|>%@`#,?:-", *v))
            return; /* a YAML indicator: not a plain id */
        char *hash = strstr(v, " #");
        end = hash ? hash : v + strlen(v);
        while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (memchr(v, ':', (size_t)(end - v)) || memchr(v, '\t', (size_t)(end - v)))
            return;
    }
    size_t n = (size_t)(end - v);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            return;
    if (n > 0 && n < size)
        snprintf(student, size, "%.*s", (int)n, v);
}
/* The file at path as YAML, a mapping, and its student id when that reads
 * (student is "" otherwise): whatever else is wrong, rows can then name
 * the student. Values are not checked for YAML 1.1 look-alikes here: each
 * answer is checked on its own, so one bad answer costs that answer only.
 * No error quotes the file's text (hide_file_text, kind_text). */
static pe_status open_submission(const char *path, pe_ydoc *d, char *student, size_t size,
                                 pe_error *e)
{
    char *data = NULL;
    size_t len = 0;
    pe_status st = read_submission_file(path, &data, &len, e);
    if (st == PE_OK && (st = ydoc_parse_unchecked_values(d, path, data, len, e)) != PE_OK)
        hide_file_text(e);
    if (st != PE_OK && data)
        scan_student_line(data, len, student, size); /* rows can still name the student */
    free(data);
    if (st != PE_OK)
        return st;
    const yaml_node_t *root = ydoc_root(d);
    if (root->type != YAML_MAPPING_NODE)
        return y_fail(e, d, root, "a submission is a mapping (student, drill, answers), got %s",
                      kind_text(root));
    const yaml_node_t *id = y_map_get(d, root, "student");
    if (!id)
        return PE_OK; /* reported as a missing key by check_keys */
    if ((st = y_check_values(d, id, "student", e)) != PE_OK)
        hide_file_text(e);
    if (st == PE_OK)
        st = read_student(d, id, student, size, e);
    if (st != PE_OK)
        student[0] = '\0';
    return st;
}

static const char *const SUBMISSION_KEYS[] = {"student", "drill", "answers"};
enum { SUB_STUDENT, SUB_DRILL, SUB_ANSWERS, SUB_KEYS };

/* Every key of a submission (value[SUB_*]), and no other: an unknown key
 * is named by its place and the nearest key, not by its text. */
static pe_status check_keys(const pe_ydoc *d, const yaml_node_t *value[SUB_KEYS], pe_error *e)
{
    const yaml_node_t *root = ydoc_root(d);
    for (size_t k = 0; k < SUB_KEYS; k++)
        value[k] = NULL;
    for (const yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *kn = ydoc_node(d, p->key);
        size_t k = 0;
        while (k < SUB_KEYS && !(y_len(kn) == strlen(SUBMISSION_KEYS[k]) &&
                                 memcmp(y_text(kn), SUBMISSION_KEYS[k], y_len(kn)) == 0))
            k++;
        if (k == SUB_KEYS) {
            const char *near = y_suggest(y_text(kn), y_len(kn), SUBMISSION_KEYS, SUB_KEYS);
            return y_fail(e, d, kn,
                          "unknown key: a submission has the keys student, drill and "
                          "answers%s%s%s",
                          near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
        value[k] = ydoc_node(d, p->value);
    }
    for (size_t k = 0; k < SUB_KEYS; k++)
        if (!value[k])
            return y_fail(e, d, root, "missing required key '%s'", SUBMISSION_KEYS[k]);
    pe_status st = y_check_values(d, value[SUB_DRILL], "drill", e);
    if (st != PE_OK)
        hide_file_text(e);
    return st;
}

bool grade_read_student_of(const char *path, char *student, size_t size)
{
    pe_ydoc d;
    memset(&d, 0, sizeof d);
    pe_error e = {0};
    student[0] = '\0';
    open_submission(path, &d, student, size, &e);
    ydoc_free(&d);
    return student[0] != '\0';
}

/* drill: must be the key's (the other name is not quoted: see kind_text). */
static pe_status check_drill(const pe_scenario *s, const pe_ydoc *d, const yaml_node_t *n,
                             pe_error *e)
{
    char drill[PE_NAME_MAX];
    if (!y_is_string(n))
        return y_fail(e, d, n, "drill: expected the name of the drill, got %s", kind_text(n));
    pe_status st = y_get_label(d, n, "drill", drill, sizeof drill, e);
    if (st == PE_OK && strcmp(drill, s->name) != 0)
        st = y_fail(e, d, n,
                    "wrong drill: this key grades \"%s\", and drill: names another (is this "
                    "the file for this drill?)",
                    s->name);
    return st;
}

pe_status grade_read_submission(const pe_scenario *s, const char *path, pe_ydoc *d,
                                char *student, size_t student_size,
                                const yaml_node_t **answers, pe_error *e)
{
    memset(d, 0, sizeof *d);
    student[0] = '\0';
    const yaml_node_t *value[SUB_KEYS];
    /* Anything wrong with the file is the submission's row, not the run's. */
    pe_status st = open_submission(path, d, student, student_size, e);
    if (st == PE_OK)
        st = check_keys(d, value, e);
    if (st == PE_OK)
        st = check_drill(s, d, value[SUB_DRILL], e);
    if (st == PE_OK && (*answers = value[SUB_ANSWERS])->type != YAML_MAPPING_NODE)
        st = y_fail(e, d, *answers, "answers: expected a mapping of question ids to answers, "
                                    "got %s", kind_text(*answers));
    return st;
}
