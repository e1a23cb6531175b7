/* yamlfiles.c — the *.yaml and *.yml files of a directory (see yamlfiles.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input/yamlfiles.h"

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len > n && strcmp(s + len - n, suffix) == 0;
}

bool yaml_file_name(const char *name)
{
    size_t len = strlen(name);
    return ends_with(name, len, ".yaml") || ends_with(name, len, ".yml");
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append a copy of name to the growing array. */
static bool push(char ***names, size_t *count, size_t *cap, const char *name)
{
    if (*count == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        char **nn = realloc(*names, nc * sizeof *nn);
        if (!nn)
            return false;
        *names = nn;
        *cap = nc;
    }
    if (!((*names)[*count] = strdup(name)))
        return false;
    (*count)++;
    return true;
}

pe_status yaml_files_in(const char *dir, char ***names, size_t *count, pe_error *err)
{
    *names = NULL;
    *count = 0;
    DIR *dp = opendir(dir);
    if (!dp)
        return pe_fail(err, PE_BAD_INPUT, dir, 0, 0, "cannot read the directory: %s",
                       strerror(errno));
    size_t cap = 0;
    bool ok = true;
    struct dirent *de;
    while (ok && (de = readdir(dp)) != NULL)
        if (de->d_name[0] != '.' && yaml_file_name(de->d_name))
            ok = push(names, count, &cap, de->d_name);
    closedir(dp);
    if (!ok) {
        yaml_files_free(*names, *count);
        *names = NULL;
        *count = 0;
        return pe_fail(err, PE_INTERNAL, dir, 0, 0, "out of memory");
    }
    if (*count == 0)
        return pe_fail(err, PE_BAD_INPUT, dir, 0, 0,
                       "no *.yaml or *.yml file in this directory");
    qsort(*names, *count, sizeof **names, cmp_name); /* byte order */
    return PE_OK;
}

void yaml_files_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
