/* args.c — the argument helpers every command shares (cli.h): error and
 * usage printing, --threads, the catalog, and the scenario file list
 * (a directory argument means its *.yaml and *.yml files in byte order). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "input/yamlfiles.h"

void cli_print_error(const pe_error *err)
{
    char buf[PE_PATH_MAX + PE_MSG_MAX + 64];
    pe_error_format(err, buf, sizeof buf);
    fprintf(stderr, "%s\n%s", buf, err->more); /* more: the file's other errors, one a line */
}

int cli_worst(int a, int b) { return a > b ? a : b; }

int cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "planeval: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'planeval --help'.\n");
    return PE_BAD_INPUT;
}

bool cli_path_given(const char *option, const char *value)
{
    if (!value[0]) {
        fprintf(stderr, "planeval: %s needs a path, got ''\nTry 'planeval --help'.\n", option);
        return false;
    }
    if (strlen(value) > CLI_PATH_OPTION_MAX) {
        fprintf(stderr, "planeval: %s: a path of %zu bytes is too long (at most %d: the files "
                "written under it, such as DIR/.NAME.shard-I-of-N.summary.csv.tmp.HOST.PID, "
                "must fit %d bytes)\nTry 'planeval --help'.\n", option, strlen(value),
                CLI_PATH_OPTION_MAX, PE_PATH_MAX);
        return false;
    }
    return true;
}

bool cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

bool cli_parse_threads(const char *text, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || *end || end == text || n < 1 || n > 4096)
        return false;
    *out = (int)n;
    return true;
}

int cli_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

pe_status cli_open_catalog(const char *dir, pe_catalog **catalog)
{
    pe_error err = {0};
    pe_status st = catalog_open(dir, catalog, &err);
    if (st != PE_OK)
        cli_print_error(&err);
    return st;
}

pe_status file_list_add(pe_file_list *l, const char *path, const char *name)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (!p)
            return PE_INTERNAL;
        l->paths = p;
        l->cap = cap;
    }
    size_t n = strlen(path) + (name ? strlen(name) + 2 : 1);
    char *s = malloc(n);
    if (!s)
        return PE_INTERNAL;
    if (name)
        snprintf(s, n, "%s/%s", path, name);
    else
        snprintf(s, n, "%s", path);
    l->paths[l->count++] = s;
    return PE_OK;
}

void file_list_free(pe_file_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

/* The *.yaml and *.yml files of directory dir, in byte order of their
 * names (yamlfiles.h); a directory with neither is an error naming it. */
static int add_directory(const char *dir, pe_file_list *out)
{
    pe_error err = {0};
    char **names = NULL;
    size_t count = 0;
    pe_status st = yaml_files_in(dir, &names, &count, &err);
    if (st != PE_OK)
        cli_print_error(&err);
    for (size_t j = 0; j < count && st == PE_OK; j++)
        if (file_list_add(out, dir, names[j]) != PE_OK)
            st = PE_INTERNAL;
    yaml_files_free(names, count);
    return st;
}

static int expand(char **args, int n, bool directories, pe_file_list *out)
{
    int status = PE_OK;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            fprintf(stderr, "%s: error: %s\n", args[i], strerror(errno));
            status = cli_worst(status, PE_BAD_INPUT);
            continue;
        }
        if (S_ISDIR(st.st_mode) && !directories) {
            fprintf(stderr, "%s: error: is a directory: give the report files\n", args[i]);
            status = cli_worst(status, PE_BAD_INPUT);
            continue;
        }
        int added = S_ISDIR(st.st_mode) ? add_directory(args[i], out)
                    : file_list_add(out, args[i], NULL) != PE_OK ? PE_INTERNAL
                                                                 : PE_OK;
        if (added == PE_INTERNAL)
            return PE_INTERNAL;
        status = cli_worst(status, added);
    }
    return status;
}

int cli_expand_paths(char **args, int n, pe_file_list *out)
{
    return expand(args, n, true, out);
}

int cli_expand_files(char **args, int n, pe_file_list *out)
{
    return expand(args, n, false, out);
}
