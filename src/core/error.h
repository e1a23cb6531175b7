/* error.h — errors are values. A function that can fail returns a pe_status
 * and fills a pe_error; only main() prints it ("FILE:LINE:COL: error: MSG")
 * and chooses the exit code from the status.
 *
 * A loader reports every mistake of a file in one pass: it collects them in
 * a pe_error_list and packs the list into one pe_error (the first error in
 * the fields, the others as formatted lines in `more`). */
#ifndef PLANEVAL_ERROR_H
#define PLANEVAL_ERROR_H

#define PE_PATH_MAX 1024
#define PE_MSG_MAX 1024
#define PE_ERRORS_MAX 20  /* errors of one file reported at once; then "... and N more" */
#define PE_MORE_MAX 12288 /* room for the other PE_ERRORS_MAX - 1 lines */

#include <stddef.h>

typedef enum {
    PE_OK = 0,
    PE_CHECK_FAILED = 1, /* an expectation did not hold */
    PE_BAD_INPUT = 2,    /* bad scenario, bad usage */
    PE_INTERNAL = 3,     /* I/O or internal error */
    PE_INTERRUPTED = 4   /* a signal stopped the work; main exits 128 + signal */
} pe_status;

typedef struct pe_error {
    char file[PE_PATH_MAX]; /* "" when the error has no file */
    int line, col;          /* 1-based; 0 when unknown */
    char msg[PE_MSG_MAX];
    /* The further errors of the same input, one formatted line each
     * ("FILE:LINE:COL: error: MSG\n"), the last maybe "FILE: error: ... and
     * N more errors\n"; "" when there is only the one above. */
    char more[PE_MORE_MAX];
} pe_error;

/* Fill err (file may be NULL; line/col 0 when unknown) and return status;
 * err->more is cleared. */
pe_status pe_fail(pe_error *err, pe_status status, const char *file, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Format as "FILE:LINE:COL: error: MSG" (or "FILE: error: MSG", "error: MSG"):
 * the first error only; err->more holds the others. */
void pe_error_format(const pe_error *err, char *buf, size_t size);

/* One error of a list: a pe_error without `more`. */
typedef struct pe_error_item {
    char file[PE_PATH_MAX];
    int line, col;
    char msg[PE_MSG_MAX];
} pe_error_item;

/* Errors collected in one pass: up to PE_ERRORS_KEPT kept (so the first
 * PE_ERRORS_MAX in file order can be chosen), all counted. */
#define PE_ERRORS_KEPT 1000
typedef struct pe_error_list {
    pe_error_item *items;
    size_t count, cap; /* kept */
    size_t total;      /* found */
} pe_error_list;

/* Add a copy of e's first error (not its `more` lines), unless the list
 * holds the same error already. Returns PE_INTERNAL when out of memory,
 * else PE_OK. */
pe_status pe_errors_add(pe_error_list *list, const pe_error *e);
/* Sort by position (stable; errors without a line first, other files after
 * the first error's file), write the first PE_ERRORS_MAX into err (the first
 * in the fields, the rest in err->more, then "... and N more errors") and
 * free the list. Returns the status to report:
 * PE_BAD_INPUT, or PE_OK for an empty list. */
pe_status pe_errors_pack(pe_error_list *list, pe_error *err);
void pe_errors_free(pe_error_list *list);

#endif
