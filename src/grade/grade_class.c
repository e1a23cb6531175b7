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

pe_status grade_class_record(grade_class *c, const char *student, double points,
                             const char *file, pe_error *err)
{
    if (!student[0])
        return PE_OK; /* no id: no gradebook row (the grades file has the error) */
    book_entry *b = realloc(c->book, (c->book_count + 1) * sizeof *b);
    if (!b)
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    c->book = b;
    book_entry *e = &c->book[c->book_count];
    *e = (book_entry){strdup(student), points, strdup(file)};
    if (!e->student || !e->file) {
        free(e->student);
        free(e->file);
        return pe_fail(err, PE_INTERNAL, NULL, 0, 0, "out of memory");
    }
    c->book_count++;
    return PE_OK;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const book_entry *)a)->student, ((const book_entry *)b)->student);
}

pe_status grade_class_write_book(grade_class *c, const char *path, double possible,
                                 pe_report **out, pe_error *err)
{
    static const char *const header[] = {"student", "points", "possible", "percent", "file"};
    if (c->book_count) /* qsort's array may not be NULL, even for 0 entries */
        qsort(c->book, c->book_count, sizeof *c->book, cmp_entry);
    pe_status st = report_open_cells(path, header, 5, out, err);
    for (size_t i = 0; st == PE_OK && i < c->book_count; i++) {
        const book_entry *e = &c->book[i];
        char pts[32], poss[32], pct[32];
        grade_fmt_points(e->points, pts, sizeof pts);
        grade_fmt_points(possible, poss, sizeof poss);
        grade_fmt_points(possible > 0 ? 100.0 * e->points / possible : 0, pct, sizeof pct);
        const char *cells[] = {e->student, pts, poss, pct, e->file};
        st = report_write_cells(*out, cells, 5, err);
    }
    if (st != PE_OK && *out) {
        report_abort(*out);
        *out = NULL;
    }
    return st;
}
