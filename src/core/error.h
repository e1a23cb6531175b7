/* error.h — errors are values. A function that can fail returns a pe_status
 * and fills a pe_error; only main() prints it ("FILE:LINE:COL: error: MSG")
 * and chooses the exit code from the status. */
#ifndef PLANEVAL_ERROR_H
#define PLANEVAL_ERROR_H

#define PE_PATH_MAX 1024
#define PE_MSG_MAX 1024

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
} pe_error;

/* Fill err (file may be NULL; line/col 0 when unknown) and return status. */
pe_status pe_fail(pe_error *err, pe_status status, const char *file, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Format as "FILE:LINE:COL: error: MSG" (or "FILE: error: MSG", "error: MSG"). */
void pe_error_format(const pe_error *err, char *buf, size_t size);

#endif
