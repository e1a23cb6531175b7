/* html_read.h — a report already written (by run, or joined by merge) read
 * back (csvread.h) into the points and page of html.h, with the facts and
 * counts of its summary (<base>.summary.csv beside <base>.csv) when there is
 * one, else counts taken from the rows themselves. */
#ifndef PLANEVAL_HTML_READ_H
#define PLANEVAL_HTML_READ_H

#include "core/error.h"
#include "output/csvread.h"
#include "output/html.h"

typedef struct {
    pe_csv_table table;    /* the report's cells: the points' plan names */
    pe_html_point *points; /* owned, in report order */
    size_t n;
} pe_html_source;

pe_status html_read_report(const char *path, pe_html_page *page, pe_html_source *src,
                           pe_error *err);
void html_source_free(pe_html_source *src);

#endif
