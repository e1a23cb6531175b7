/* grade_class.c — the class as a whole (grade_internal.h): which of a
 * student's files counts (the last by name), and the gradebook, one row
 * per student through the report writer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_internal.h"

typedef struct {
    char *student; /* owned; NULL when no id could be read */
    const char *path;
    size_t index;
} student_file;

/* By student, then path, then place: a student's counting file is last. */
static int cmp_student_file(const void *a, const void *b)
{
    const student_file *x = a, *y = b;
    int c = strcmp(x->student, y->student);
    if (!c)
        c = strcmp(x->path, y->path);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* counted[i] for every file of one student: the last of its group. */
static void mark_groups(grade_class *c, const student_file *sorted, size_t n)
{
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && strcmp(sorted[hi].student, sorted[lo].student) == 0)
            hi++;
        for (size_t k = lo; k < hi; k++)
            c->counted[sorted[k].index] = sorted[hi - 1].index;
        lo = hi;
    }
}

pe_status grade_class_init(grade_class *c, const pe_grade_files *subs, pe_error *err)
{
    memset(c, 0, sizeof *c);
    c->count = subs->count;
    c->paths = subs->paths;
    c->counted = malloc((subs->count ? subs->count : 1) * sizeof *c->counted);
    student_file *files = calloc(subs->count ? subs->count : 1, sizeof *files);
    pe_status st = c->counted && files ? PE_OK : pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    size_t n = 0;
    for (size_t i = 0; st == PE_OK && i < subs->count; i++) {
        char id[PE_NAME_MAX];
        c->counted[i] = SIZE_MAX;
        if (!grade_read_student_of(subs->paths[i], id, sizeof id))
            continue;
        files[n] = (student_file){strdup(id), subs->paths[i], i};
        if (!files[n++].student)
            st = pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    }
    if (st == PE_OK) {
        qsort(files, n, sizeof *files, cmp_student_file);
        mark_groups(c, files, n);
    }
    for (size_t i = 0; files && i < n; i++)
        free(files[i].student);
    free(files);
    return st;
}

void grade_class_free(grade_class *c)
{
    for (size_t i = 0; i < c->book_count; i++) {
        free(c->book[i].student);
        free(c->book[i].file);
        free(c->book[i].note);
    }
    free(c->book);
    free(c->counted);
    memset(c, 0, sizeof *c);
}

size_t grade_class_superseded_by(const grade_class *c, size_t i)
{
    if (i >= c->count || c->counted[i] == SIZE_MAX || c->counted[i] == i)
        return SIZE_MAX;
    return c->counted[i];
}

/* The last part of a path: what names a file without a student id. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

pe_status grade_class_record(grade_class *c, size_t i, const char *student, double points,
                             const char *file, const char *rejected, pe_error *err)
{
    char name[PE_PATH_MAX + 16], note[TEXT_MAX + 8] = "";
    if (student[0])
        snprintf(name, sizeof name, "%s", student);
    else /* no id: the row is named by the file, never dropped */
        grade_safe_cell(base_name(c->paths[i]), strlen(base_name(c->paths[i])), PE_PATH_MAX,
                        name, sizeof name);
    if (rejected) {
        char text[TEXT_MAX];
        snprintf(text, sizeof text, "rejected: %s", rejected);
        grade_safe_cell(text, strlen(text), TEXT_MAX - 8, note, sizeof note);
    }
    book_entry *b = realloc(c->book, (c->book_count + 1) * sizeof *b);
    if (!b)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    c->book = b;
    book_entry *e = &c->book[c->book_count];
    *e = (book_entry){strdup(name), points, strdup(file), strdup(note), i};
    if (!e->student || !e->file || !e->note) {
        free(e->student);
        free(e->file);
        free(e->note);
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    }
    c->book_count++;
    return PE_OK;
}

/* By student, then file (two files without an id may share a name). */
static int cmp_entry(const void *a, const void *b)
{
    const book_entry *x = a, *y = b;
    int c = strcmp(x->student, y->student);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The note cell of entry e: why it earned nothing, then the files of the
 * same student it superseded (the policy: the last by name counts). */
static void book_note(const grade_class *c, const book_entry *e, char *buf, size_t size)
{
    char text[TEXT_MAX];
    size_t n = (size_t)snprintf(text, sizeof text, "%s", e->note);
    size_t superseded = 0;
    for (size_t i = 0; i < c->count && n < sizeof text; i++) {
        if (i == e->index || c->counted[i] != e->index)
            continue;
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s",
                              superseded++ ? ", " : n ? "; supersedes " : "supersedes ",
                              c->paths[i]);
    }
    if (superseded && n < sizeof text)
        snprintf(text + n, sizeof text - n, " (the last file by name counts)");
    grade_safe_cell(text, strlen(text), TEXT_MAX - 8, buf, size);
}

pe_status grade_class_write_book(grade_class *c, const char *path, double possible,
                                 pe_report **out, pe_error *err)
{
    static const char *const header[] = {"student", "points",  "possible",
                                         "percent", "file",    "note"};
    enum { BOOK_COLS = sizeof header / sizeof header[0] };
    if (c->book_count) /* qsort's array may not be NULL, even for 0 entries */
        qsort(c->book, c->book_count, sizeof *c->book, cmp_entry);
    pe_status st = report_open_cells(path, header, BOOK_COLS, out, err);
    for (size_t i = 0; st == PE_OK && i < c->book_count; i++) {
        const book_entry *e = &c->book[i];
        char pts[32], poss[32], pct[32], note[TEXT_MAX + 8];
        grade_fmt_points(e->points, pts, sizeof pts);
        grade_fmt_points(possible, poss, sizeof poss);
        grade_fmt_points(possible > 0 ? 100.0 * e->points / possible : 0, pct, sizeof pct);
        book_note(c, e, note, sizeof note);
        const char *cells[] = {e->student, pts, poss, pct, e->file, note};
        st = report_write_cells(*out, cells, BOOK_COLS, err);
    }
    if (st != PE_OK && *out) {
        report_abort(*out);
        *out = NULL;
    }
    return st;
}
