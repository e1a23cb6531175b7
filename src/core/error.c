/* error.c — filling and formatting pe_error values. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

pe_status pe_fail(pe_error *err, pe_status status, const char *file, int line, int col,
                  const char *fmt, ...)
{
    if (!err)
        return status;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return status;
}

void pe_error_format(const pe_error *err, char *buf, size_t size)
{
    if (err->file[0] && err->line > 0)
        snprintf(buf, size, "%s:%d:%d: error: %s", err->file, err->line, err->col, err->msg);
    else if (err->file[0])
        snprintf(buf, size, "%s: error: %s", err->file, err->msg);
    else
        snprintf(buf, size, "error: %s", err->msg);
}
