/* long_options.c — long options spelled in full (long_options.h). */
#include <stdio.h>
#include <string.h>

#include "cli/long_options.h"

/* The option called exactly name[0..len), or NULL. */
static const struct option *exact(const struct option *options, const char *name, size_t len)
{
    for (const struct option *o = options; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

/* "unknown option '--x'", with the options x begins, if any. */
static void unknown(const struct option *options, const char *arg, size_t len, char *msg,
                    size_t size)
{
    int n = snprintf(msg, size, "unknown option '%.*s'", (int)(len + 2), arg);
    const char *sep = " (did you mean ";
    for (const struct option *o = options; o->name && n >= 0 && (size_t)n < size; o++)
        if (len > 0 && strncmp(o->name, arg + 2, len) == 0) {
            n += snprintf(msg + n, size - (size_t)n, "%s--%s", sep, o->name);
            sep = " or ";
        }
    if (n >= 0 && (size_t)n < size && strcmp(sep, " or ") == 0)
        snprintf(msg + n, size - (size_t)n, "?)");
}

/* How many argv entries a cluster of short options takes: 1, or 2 when
 * its last option needs a value written separately. */
static int short_cluster(const char *arg, const char *shortopts)
{
    for (const char *c = arg + 1; *c; c++) {
        const char *s = strchr(shortopts, *c);
        if (s && s[1] == ':')
            return c[1] ? 1 : 2;
    }
    return 1;
}

bool long_options_spelled_out(int argc, char **argv, int first, const struct option *options,
                              const char *shortopts, char *msg, size_t size)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return true;
        if (a[0] != '-' || a[1] == '\0')
            continue; /* an operand */
        if (a[1] != '-') {
            i += short_cluster(a, shortopts) - 1;
            continue;
        }
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const struct option *o = exact(options, a + 2, len);
        if (!o) {
            unknown(options, a, len, msg, size);
            return false;
        }
        if (o->has_arg == required_argument && !eq)
            i++;
    }
    return true;
}
