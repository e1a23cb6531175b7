/* html_cmd.h — `planeval html REPORT.csv... [-o DIR]`: the HTML page of
 * reports already written (by run, or shards joined by merge), each to
 * DIR/<stem>.html (the report's file name without .csv; for run's reports
 * that is the scenario's name, as `run --html` writes it). */
#ifndef PLANEVAL_HTML_CMD_H
#define PLANEVAL_HTML_CMD_H

#include <stdbool.h>

#include "core/error.h"

/* Every report of paths[0..n); errors go to on_error; the worst status. */
int html_reports(char *const *paths, int n, const char *dir, bool quiet,
                 void (*on_error)(const pe_error *err));

#endif
