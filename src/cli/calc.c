/* calc.c — `planeval memory`, `planeval collective`, `planeval bubble`. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/calc.h"
#include "cli/cli.h"
#include "cli/command_help.h"
#include "model/evaluate.h"
#include "cli/explain.h"
#include "cli/long_options.h"
#include "core/fields.h"
#include "input/load.h"
#include "input/yamlutil.h"
#include "model/comm.h"
#include "model/memory.h"
#include "model/pipeline.h"
#include "sweep/plans.h"

#define GIB 1073741824.0

/* ------------------------------------------------------------ helpers */

#define TEXT_LINES 128

/* A growing text buffer for the scenario a calculator builds, and the
 * option each of its lines came from (so a load error names the option,
 * not a line of a text the user never saw). */
typedef struct {
    char data[8192];
    size_t len;
    bool overflow;
    int lines;                          /* complete lines so far */
    const char *option[TEXT_LINES + 1]; /* option[LINE]: the option of 1-based LINE, or NULL */
    const char *value[TEXT_LINES + 1];
} text;

static void vadd(text *t, const char *fmt, va_list ap)
{
    int n = vsnprintf(t->data + t->len, sizeof t->data - t->len, fmt, ap);
    if (n < 0 || (size_t)n >= sizeof t->data - t->len) {
        t->overflow = true;
        return;
    }
    for (int i = 0; i < n; i++)
        t->lines += t->data[t->len + (size_t)i] == '\n';
    t->len += (size_t)n;
}

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(t, fmt, ap);
    va_end(ap);
}

/* One line holding the value of --option. */
static void add_opt(text *t, const char *option, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_opt(text *t, const char *option, const char *value, const char *fmt, ...)
{
    if (t->lines + 1 <= TEXT_LINES) {
        t->option[t->lines + 1] = option;
        t->value[t->lines + 1] = value;
    }
    va_list ap;
    va_start(ap, fmt);
    vadd(t, fmt, ap);
    va_end(ap);
}

/* One error of the calculator's text, "COMMAND: --OPTION VALUE: MSG" (or
 * "COMMAND: MSG" for a line no option wrote), into buf. */
static void option_message(const text *t, const char *command, int line, const char *msg,
                           char *buf, size_t size)
{
    static const char missing[] = "missing required key '";
    char key[64];
    if (sscanf(msg, "missing required key '%63[a-z_]'", key) == 1 &&
        strncmp(msg, missing, sizeof missing - 1) == 0) {
        for (char *c = key; *c; c++)
            *c = *c == '_' ? '-' : *c; /* the option's spelling */
        snprintf(buf, size, "%s: %s: give --%s (or a preset that has it)", command, msg, key);
    } else if (line > 0 && line <= TEXT_LINES && t->option[line])
        snprintf(buf, size, "%s: --%s %s: %s", command, t->option[line], t->value[line], msg);
    else
        snprintf(buf, size, "%s: %s", command, msg);
}

/* A load error of the calculator's text (FILE:LINE:COL of that text) as
 * errors of the options: the first in err's fields, the others rewritten
 * in err->more ("error: MSG" lines, as cli_print_error prints them). */
static void name_options(const text *t, const char *command, pe_error *err)
{
    char first[PE_MSG_MAX], more[PE_MORE_MAX] = "";
    option_message(t, command, err->line, err->msg, first, sizeof first);
    size_t used = 0, prefix = strlen(err->file);
    for (const char *l = err->more; *l && used < sizeof more;) {
        const char *nl = strchr(l, '\n');
        int len = nl ? (int)(nl - l) : (int)strlen(l);
        int line = 0, skip = 0;
        char msg[PE_MSG_MAX], line_text[PE_MSG_MAX + 256];
        if (strncmp(l, err->file, prefix) == 0 &&
            sscanf(l + prefix, ":%d:%*d: error: %n", &line, &skip) == 1 && skip > 0)
            snprintf(msg, sizeof msg, "%.*s", len - (int)prefix - skip, l + prefix + skip);
        else
            snprintf(msg, sizeof msg, "%.*s", len, l);
        option_message(t, command, line, msg, line_text, sizeof line_text);
        int n = snprintf(more + used, sizeof more - used, "error: %s\n", line_text);
        used += n > 0 ? (size_t)n : 0;
        l = nl ? nl + 1 : l + len;
    }
    pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "%s", first);
    snprintf(err->more, sizeof err->more, "%s", more);
}

/* Option values go into YAML as plain scalars; refuse anything that could
 * change the document's structure, so the loader sees exactly one value. */
static pe_status scalar_ok(const char *opt, const char *v, pe_error *err)
{
    if (!v[0] || strpbrk(v, ":{}[],#&*!|>'\"%@`\n\r\t "))
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--%s: '%s' is not a plain value", opt, v);
    return PE_OK;
}

/* A number; with bytes, an optional unit suffix (KB, MiB, ...). */
static pe_status parse_number(const char *opt, const char *v, bool bytes, double *out,
                              pe_error *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    /* decimal only: strtod also reads hexadecimal ("0x10"), "inf", spaces */
    const char *digits = v + (v[0] == '-' || v[0] == '+');
    const bool decimal = (isdigit((unsigned char)digits[0]) || digits[0] == '.') &&
                         !(digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'));
    if (errno || end == v || !isfinite(x) || !decimal)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--%s needs a decimal number, got '%s'", opt,
                       v);
    if (!bytes && *end)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--%s needs a plain number, got '%s'", opt, v);
    /* byte sizes: optional binary or decimal suffix */
    static const struct { const char *suffix; double factor; } units[] = {
        {"", 1}, {"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
        {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", GIB}, {"TiB", GIB * 1024.0}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].suffix) == 0) {
            *out = x * units[i].factor;
            return PE_OK;
        }
    return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--%s: unknown unit in '%s' (use B, KB, MB, GB, "
                   "KiB, MiB, GiB)", opt, v);
}

/* getopt's '?' or ':': name the option (getopt itself is kept quiet, so
 * the user sees one message). */
static pe_status bad_option(const char *command, char **argv, pe_error *err)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                   "%s: unknown option '%s' or a missing value (see --help)", command, arg);
}

static pe_status parse_whole(const char *opt, const char *v, long long *out, pe_error *err)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < 1)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--%s needs a whole number >= 1, got '%s'",
                       opt, v);
    *out = x;
    return PE_OK;
}

/* Long options spelled in full: getopt_long would take `--gpus` for
 * `--gpus-per-node`. */
static pe_status spelled_out(const char *command, int argc, char **argv,
                             const struct option *options, pe_error *err)
{
    char msg[256];
    if (long_options_spelled_out(argc, argv, 1, options, "", msg, sizeof msg))
        return PE_OK;
    return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "%s: %s (see --help)", command, msg);
}

/* The GPU preset a cluster preset names (`gpu: {preset: NAME}`), or NULL:
 * the latest entry of its --catalog chain that names one, as the loader
 * merges them key by key (an override that gives only gpus_per_node keeps
 * the built-in's GPU). */
static const char *cluster_gpu_preset(const pe_catalog *catalog, const char *cluster,
                                      char *buf, size_t size)
{
    const pe_preset *latest = catalog_find(catalog, "clusters", cluster);
    const pe_preset *chain[PE_PRESET_CHAIN_MAX];
    size_t n = latest ? catalog_chain(catalog, latest, chain, PE_PRESET_CHAIN_MAX) : 0;
    while (n-- > 0) {
        const pe_preset *p = chain[n];
        const yaml_node_t *gpu = y_map_get(p->doc, p->node, "gpu");
        const yaml_node_t *name = gpu && gpu->type == YAML_MAPPING_NODE
                                      ? y_map_get(p->doc, gpu, "preset")
                                      : NULL;
        if (name && name->type == YAML_SCALAR_NODE) {
            snprintf(buf, size, "%.*s", (int)y_len(name), y_text(name));
            return buf;
        }
    }
    return NULL;
}

/* The first line of memory and collective: which cluster and GPU the
 * answer is for (the default cluster is easy to miss). */
static void print_cluster_line(const pe_catalog *catalog, const char *cluster, bool given,
                               const char *gpu, const pe_cluster *c)
{
    char buf[PE_NAME_MAX];
    if (!gpu)
        gpu = cluster_gpu_preset(catalog, cluster, buf, sizeof buf);
    printf("cluster           %s%s, gpu %s (%.6g GiB HBM, %.6g TFLOP/s peak), %lld GPUs a "
           "node\n",
           cluster, given ? "" : " (the default; choose with --cluster PRESET)",
           gpu ? gpu : "of the cluster's own keys", c->gpu.hbm_gib, c->gpu.peak_tflops,
           (long long)c->gpus_per_node);
}

/* ------------------------------------------------------------ bubble */


static const struct option BUBBLE_OPTIONS[] = {
    {"schedule", required_argument, NULL, 's'}, {"pp", required_argument, NULL, 'p'},
    {"microbatches", required_argument, NULL, 'm'},
    {"virtual-stages", required_argument, NULL, 'v'}, {"tf", required_argument, NULL, 'f'},
    {"tb", required_argument, NULL, 'b'}, {"explain", no_argument, NULL, 'e'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

typedef struct {
    long long p, m, v;
    double t_f, t_b;
    pe_schedule schedule;
    bool explain, help;
} bubble_options;

static pe_status bubble_schedule(const char *arg, pe_schedule *out, pe_error *err)
{
    for (int k = 0; k <= PE_SCHEDULE_ZB_H2; k++)
        if (strcmp(arg, pe_schedule_name((pe_schedule)k)) == 0) {
            *out = (pe_schedule)k;
            return PE_OK;
        }
    return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                   "--schedule: unknown schedule '%s' (1f1b, interleaved, gpipe, zb-h1, zb-h2)",
                   arg);
}

static pe_status bubble_parse(int argc, char **argv, bubble_options *o, pe_error *err)
{
    pe_status st = spelled_out("bubble", argc, argv, BUBBLE_OPTIONS, err);
    int c;
    optind = 1;
    opterr = 0;
    while (st == PE_OK && (c = getopt_long(argc, argv, "", BUBBLE_OPTIONS, NULL)) != -1) {
        switch (c) {
        case 's': st = bubble_schedule(optarg, &o->schedule, err); break;
        case 'p': st = parse_whole("pp", optarg, &o->p, err); break;
        case 'm': st = parse_whole("microbatches", optarg, &o->m, err); break;
        case 'v': st = parse_whole("virtual-stages", optarg, &o->v, err); break;
        case 'f': st = parse_number("tf", optarg, false, &o->t_f, err); break;
        case 'b': st = parse_number("tb", optarg, false, &o->t_b, err); break;
        case 'e': o->explain = true; break;
        case 'h': fputs(command_help_text("bubble"), stdout); o->help = true; return PE_OK;
        default: return bad_option("bubble", argv, err);
        }
    }
    if (st == PE_OK && optind < argc)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "bubble: unexpected argument '%s'", argv[optind]);
    return st;
}

/* What bubble needs: both counts, positive times, V6. */
static pe_status bubble_check(const bubble_options *o, pe_error *err)
{
    if (!o->p || !o->m)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "bubble: --pp and --microbatches are required");
    if (!(o->t_f > 0) || !(o->t_b > 0))
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "bubble: --tf and --tb must be > 0");
    /* V6 */
    if (o->schedule == PE_SCHEDULE_INTERLEAVED && (o->p < 2 || o->v < 2 || o->m % o->p != 0))
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "bubble: V6: interleaved needs pp >= 2, virtual_stages >= 2 and "
                       "microbatches mod pp = 0 (got pp=%lld, v=%lld, m=%lld)", o->p, o->v, o->m);
    if (o->schedule != PE_SCHEDULE_INTERLEAVED && o->v != 1)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "bubble: V6: --virtual-stages applies to interleaved only");
    return PE_OK;
}

int calc_bubble(int argc, char **argv, pe_error *err)
{
    bubble_options o = {.v = 1, .t_f = 1.0, .t_b = 2.0, .schedule = PE_SCHEDULE_1F1B};
    pe_status st = bubble_parse(argc, argv, &o, err);
    if (st != PE_OK || o.help)
        return st;
    if ((st = bubble_check(&o, err)) != PE_OK)
        return st;
    double P = (double)o.p, M = (double)o.m, Vs = (double)o.v;
    double bubble = pipe_bubble(o.schedule, P, Vs, o.t_f, o.t_b);
    double fraction = pipe_bubble_fraction(bubble, M, o.t_f, o.t_b);
    if (!isfinite(bubble) || !isfinite(fraction) || !isfinite(M * (o.t_f + o.t_b)))
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "bubble: --tf, --tb and --microbatches are too large to compute with");
    if (o.m < o.p) /* legal, but rarely meant: the pipeline never fills */
        fprintf(stderr,
                "bubble: warning: %lld micro-batches for %lld stages: with fewer micro-batches "
                "than stages the pipeline never fills and every stage idles most of the step "
                "(use microbatches >= pp)\n",
                o.m, o.p);
    double k0 = act_inflight(o.schedule, P, M, Vs, 0), klast = act_inflight(o.schedule, P, M, Vs, 1);
    printf("schedule          %s\n", pe_schedule_name(o.schedule));
    printf("pp                %lld\nmicrobatches      %lld\nvirtual_stages    %lld\n", o.p, o.m, o.v);
    printf("bubble_time       %.6g   (in units of --tf/--tb; one step's useful work is m*(tf+tb) = %.6g)\n",
           bubble, M * (o.t_f + o.t_b));
    printf("bubble_fraction   %.6g\n", fraction);
    printf("in_flight_first   %.6g   micro-batches of activations held on stage 0\n", k0);
    printf("in_flight_last    %.6g   on stage p-1\n", klast);
    if (o.explain)
        explain_bubble(stdout, o.schedule, P, M, Vs, o.t_f, o.t_b);
    return PE_OK;
}

/* ------------------------------------------------------------ memory */


typedef struct {
    const char *opt, *section, *key;
} mapped_option;

/* The model and cluster options, copied into the scenario text under
 * section.key; the plan's options follow from the plan's keys
 * (memory_args_init). */
static const mapped_option MEMORY_KEYS[] = {
    {"model", "model", "preset"},        {"layers", "model", "layers"},
    {"hidden", "model", "hidden"},       {"heads", "model", "heads"},
    {"kv-heads", "model", "kv_heads"},   {"ffn-hidden", "model", "ffn_hidden"},
    {"vocab", "model", "vocab"},         {"seq-len", "model", "seq_len"},
    {"params", "model", "params"},       {"mlp", "model", "mlp"},
    {"attention", "model", "attention"}, {"norm", "model", "norm"},
    {"position", "model", "position"},   {"cluster", "cluster", "preset"},
    {"nodes", "cluster", "nodes"},
    {"reserve-gib", "cluster", "reserve_gib"}, {"gpus-per-node", "cluster", "gpus_per_node"},
    {"gpu", "gpu", "preset"},            {"hbm-gib", "gpu", "hbm_gib"},
    {"global-batch", "training", "global_batch"},
    /* parameter-efficient fine-tuning (docs/model.md §3 M15–M17, A27) */
    {"finetune", "training", "finetune"}, {"lora-rank", "training", "lora_rank"},
    {"lora-targets", "training", "lora_targets"}, {"lora-dropout", "training", "lora_dropout"},
    {"base-quant", "training", "base_quant"},
    /* the refined memory model (docs/model.md §12 M9-M19): a framework
     * preset and its keys; the precision keys follow from pe_fields_precision */
    {"fidelity", "top", "fidelity"},     {"framework", "framework", "preset"},
};
#define MEMORY_FIXED_COUNT (sizeof MEMORY_KEYS / sizeof MEMORY_KEYS[0])
#define MEMORY_KEY_MAX 192

/* memory's options and their values: MEMORY_KEYS, then one --KEY per key
 * of a scenario's plan, precision and framework (core/fields.c
 * pe_fields_plan, pe_fields_precision, pe_fields_framework; '_' spelled
 * '-'), so a key added there is an option here. */
typedef struct {
    char opt[MEMORY_KEY_MAX][48];
    const char *section[MEMORY_KEY_MAX], *key[MEMORY_KEY_MAX];
    const char *value[MEMORY_KEY_MAX]; /* NULL: not given */
    size_t count;
} memory_args;

static void memory_args_init(memory_args *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < MEMORY_FIXED_COUNT; i++, a->count++) {
        snprintf(a->opt[i], sizeof a->opt[i], "%s", MEMORY_KEYS[i].opt);
        a->section[i] = MEMORY_KEYS[i].section;
        a->key[i] = MEMORY_KEYS[i].key;
    }
    const struct {
        const pe_fieldset *set;
        const char *section;
    } sets[] = {{&pe_fields_plan, "plan"}, {&pe_fields_precision, "precision"},
                {&pe_fields_framework, "framework"}};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
        for (size_t i = 0; i < sets[k].set->count && a->count < MEMORY_KEY_MAX; i++) {
            const pe_field *f = &sets[k].set->fields[i];
            /* a plan's name is the calculator's; overlap times, it sizes
             * nothing; --framework is the framework's preset */
            if (strcmp(f->key, "name") == 0 || strcmp(f->key, "preset") == 0 ||
                f->type == PE_FT_MAP)
                continue;
            char *o = a->opt[a->count];
            snprintf(o, sizeof a->opt[0], "%s", f->key);
            for (; *o; o++)
                *o = *o == '_' ? '-' : *o;
            a->section[a->count] = sets[k].section;
            a->key[a->count++] = f->key;
        }
}

/* The value of memory's option opt, or NULL when it was not given. */
static const char *memory_value(const memory_args *a, const char *opt)
{
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->opt[i], opt) == 0)
            return a->value[i];
    return NULL;
}

static bool memory_has_section(const memory_args *a, const char *section)
{
    for (size_t i = 0; i < a->count; i++)
        if (a->value[i] && strcmp(a->section[i], section) == 0)
            return true;
    return false;
}

static void add_section(text *t, const char *section, const char *indent, const memory_args *a)
{
    for (size_t i = 0; i < a->count; i++)
        if (a->value[i] && strcmp(a->section[i], section) == 0 &&
            !(strcmp(section, "cluster") == 0 && strcmp(a->key[i], "preset") == 0))
            add_opt(t, a->opt[i], a->value[i], "%s%s: %s\n", indent, a->key[i], a->value[i]);
}

/* memory's options: each value (a plain scalar) in a, --explain; *help
 * when --help was printed. */
static pe_status memory_options(int argc, char **argv, memory_args *a, bool *explain, bool *help,
                                pe_error *err)
{
    struct option options[MEMORY_KEY_MAX + 3];
    for (size_t i = 0; i < a->count; i++)
        options[i] = (struct option){a->opt[i], required_argument, NULL, (int)i + 1000};
    options[a->count] = (struct option){"explain", no_argument, NULL, 'e'};
    options[a->count + 1] = (struct option){"help", no_argument, NULL, 'h'};
    options[a->count + 2] = (struct option){NULL, 0, NULL, 0};
    pe_status st = spelled_out("memory", argc, argv, options, err);
    if (st != PE_OK)
        return st;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c == 'e')
            *explain = true;
        else if (c == 'h') {
            fputs(command_help_text("memory"), stdout);
            *help = true;
            return PE_OK;
        } else if (c >= 1000 && c < 1000 + (int)a->count) {
            st = scalar_ok(a->opt[c - 1000], optarg, err);
            if (st != PE_OK)
                return st;
            a->value[c - 1000] = optarg;
        } else
            return bad_option("memory", argv, err);
    }
    if (optind < argc)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "memory: unexpected argument '%s'", argv[optind]);
    return PE_OK;
}

/* The whole number of option opt into *out (left alone when not given). */
static pe_status memory_whole(const memory_args *a, const char *opt, long long *out,
                              pe_error *err)
{
    const char *v = memory_value(a, opt);
    return v ? parse_whole(opt, v, out, err) : PE_OK;
}

/* The plan's size from the options: its GPU count N = dp·tp·pp·cp (it
 * decides the cluster's size; 0 when --nodes is given without --dp: dp is
 * then the cluster's GPUs over tp·pp·cp) and the default global batch
 * dp·micro_batch·4·pp (0 when dp is not known yet). */
static pe_status memory_plan_size(const memory_args *a, long long *gpus, long long *batch,
                                  pe_error *err)
{
    long long deg[4] = {1, 1, 1, 1}, mb = 1, checked; /* checked: the value goes into the text */
    const char *deg_opts[4] = {"dp", "tp", "pp", "cp"};
    pe_status st = PE_OK;
    for (int d = 0; d < 4 && st == PE_OK; d++)
        st = memory_whole(a, deg_opts[d], &deg[d], err);
    const char *whole[] = {"gpus-per-node", "nodes"};
    for (size_t i = 0; i < 2 && st == PE_OK; i++)
        st = memory_whole(a, whole[i], &checked, err);
    if (st == PE_OK)
        st = memory_whole(a, "micro-batch", &mb, err);
    if (st != PE_OK)
        return st;
    const bool dp_later = memory_value(a, "nodes") && !memory_value(a, "dp");
    *gpus = 1;
    *batch = 1;
    for (int d = 0; d < 4; d++)
        if (__builtin_mul_overflow(*gpus, deg[d], gpus) || *gpus > (1LL << 53))
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "memory: dp*tp*pp*cp is more GPUs than planeval counts (2^53)");
    /* default global batch: m = 4p micro-batches of b sequences per replica */
    const long long batch_factors[] = {deg[0], mb, 4, deg[2]};
    for (int i = 0; i < 4 && !memory_value(a, "global-batch"); i++)
        if (__builtin_mul_overflow(*batch, batch_factors[i], batch) || *batch > (1LL << 53))
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "memory: the default global batch dp*micro_batch*4*pp exceeds 2^53; "
                           "give --global-batch");
    if (dp_later)
        *gpus = 0, *batch = 0;
    return PE_OK;
}

/* The cluster: section of memory's scenario text. */
static void memory_cluster_text(text *t, const memory_args *a)
{
    const char *cluster_preset = memory_value(a, "cluster");
    add(t, "cluster:\n");
    if (cluster_preset)
        add_opt(t, "cluster", cluster_preset, "  preset: %s\n", cluster_preset);
    else
        add(t, "  preset: mi300x-node\n");
    /* without --nodes, one node first; its size is the preset's (or
     * --gpus-per-node), and the node count follows from the plan once
     * that is known (memory_fit_cluster) */
    if (!memory_value(a, "nodes"))
        add(t, "  nodes: 1\n");
    add_section(t, "cluster", "  ", a);
    if (memory_has_section(a, "gpu")) {
        add(t, "  gpu:\n");
        add_section(t, "gpu", "    ", a);
    }
}

/* memory's options as a scenario text (model, cluster, training, one
 * plan). A global batch not known yet (dp from --nodes) is written as 1
 * and set once dp is (memory_default_batch). */
static void memory_scenario_text(text *t, const memory_args *a, long long batch)
{
    add(t, "schema: planeval/v1\nname: memory\n");
    add_section(t, "top", "", a);
    add(t, "model:\n");
    add_section(t, "model", "  ", a);
    memory_cluster_text(t, a);
    if (memory_has_section(a, "framework")) {
        add(t, "framework:\n");
        add_section(t, "framework", "  ", a);
    }
    if (memory_has_section(a, "precision")) {
        add(t, "precision:\n");
        add_section(t, "precision", "  ", a);
    }
    add(t, "training:\n");
    add_section(t, "training", "  ", a);
    if (!memory_value(a, "global-batch"))
        add(t, "  global_batch: %lld\n", batch ? batch : 1);
    add(t, "plans:\n  - name: plan\n");
    add_section(t, "plan", "    ", a);
    const char *nodes = memory_value(a, "nodes");
    if (!memory_value(a, "dp") && nodes) /* a load error of dp: auto names --nodes */
        add_opt(t, "nodes", nodes, "    dp: auto\n");
    else if (!memory_value(a, "dp"))
        add(t, "    dp: 1\n");
}

/* The cluster sized to the plan's gpus: part of one node, or whole nodes;
 * with --nodes, the plan must use them all (V1). */
static pe_status memory_fit_cluster(pe_scenario *s, const memory_args *a, long long gpus,
                                    pe_error *err)
{
    long long G = s->cluster.gpus_per_node;
    const char *nodes = memory_value(a, "nodes");
    if (nodes) {
        const pe_plan *p = &s->plans[0];
        const long long have = (long long)s->cluster.nodes * G,
                        used = (long long)p->dp * p->tp * p->pp * p->cp;
        if (used != have)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "memory: --nodes %s: the cluster has %lld GPUs, but dp*tp*pp*cp = "
                           "%lld (V1; leave out --dp to take dp = GPUs/(tp*pp*cp))",
                           nodes, have, used);
        return PE_OK;
    }
    if (gpus < G) {
        s->cluster.gpus_per_node = gpus; /* a plan on part of one node: the GPUs it uses */
        return PE_OK;
    }
    if (gpus % G != 0)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "memory: dp*tp*pp*cp = %lld GPUs is not a whole number of %lld-GPU nodes "
                       "(set --gpus-per-node, or give --nodes)", gpus, G);
    s->cluster.nodes = gpus / G;
    if (s->cluster.nodes > 1 && !s->cluster.inter_node.present)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "memory: %lld GPUs need %lld nodes, and the cluster has no inter_node",
                       gpus, (long long)s->cluster.nodes);
    return PE_OK;
}

/* The default global batch once dp is known (it came from --nodes). */
static void memory_default_batch(pe_scenario *s, const memory_args *a)
{
    if (memory_value(a, "global-batch"))
        return;
    const pe_plan *p = &s->plans[0];
    s->training.global_batch = (long long)p->dp * p->micro_batch * 4 * p->pp;
}

/* The options as a loaded scenario of one plan on a cluster sized to it. */
static pe_status memory_scenario(const memory_args *a, const pe_catalog *catalog,
                                 pe_scenario *s, pe_error *err)
{
    long long gpus, batch;
    pe_status st = memory_plan_size(a, &gpus, &batch, err);
    if (st != PE_OK)
        return st;
    if (!memory_has_section(a, "model"))
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "memory: no model given: --model PRESET, or --layers, --hidden, --heads, "
                       "--vocab and --seq-len (see --help)");
    text t = {0}; /* 8 KB on the stack: no state kept between calls */
    memory_scenario_text(&t, a, batch);
    if (t.overflow)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "memory: options too long");
    st = load_scenario_buffer("<memory options>", t.data, t.len, catalog, s, err);
    if (st != PE_OK) {
        name_options(&t, "memory", err);
        return st;
    }
    if ((st = memory_fit_cluster(s, a, gpus, err)) != PE_OK) {
        scenario_free(s);
        return st;
    }
    if (!batch)
        memory_default_batch(s, a);
    return PE_OK;
}

int calc_memory(int argc, char **argv, const pe_catalog *catalog, pe_error *err)
{
    memory_args a;
    memory_args_init(&a);
    bool explain = false, help = false;
    pe_status st = memory_options(argc, argv, &a, &explain, &help, err);
    if (st != PE_OK || help)
        return st;
    pe_scenario s;
    if ((st = memory_scenario(&a, catalog, &s, err)) != PE_OK)
        return st;
    pe_eval_ctx ctx;
    evaluate_prepare(&s, &ctx);
    pe_result r;
    evaluate_plan(&ctx, &s.plans[0], &r);
    const char *cluster = memory_value(&a, "cluster"), *gpu = memory_value(&a, "gpu");
    print_cluster_line(catalog, cluster ? cluster : "mi300x-node", cluster != NULL, gpu,
                       &s.cluster);
    explain_memory_summary(stdout, &ctx, &s.plans[0], &r);
    if (explain)
        explain_plan(stdout, &ctx, &s.plans[0], EXPLAIN_MEMORY);
    scenario_free(&s);
    return PE_OK;
}

/* ------------------------------------------------------------ collective */


enum { O_OP = 1000, O_BYTES, O_GROUP, O_STRIDE, O_CLUSTER, O_GPN, O_TOPO, O_BW, O_LINKS,
       O_LINK_BW, O_LAT_IN, O_NIC, O_LAT_OUT, O_EXPLAIN, O_HELP };
static const struct option COLLECTIVE_OPTIONS[] = {
    {"op", required_argument, NULL, O_OP}, {"bytes", required_argument, NULL, O_BYTES},
    {"group", required_argument, NULL, O_GROUP}, {"stride", required_argument, NULL, O_STRIDE},
    {"cluster", required_argument, NULL, O_CLUSTER},
    {"gpus-per-node", required_argument, NULL, O_GPN},
    {"topology", required_argument, NULL, O_TOPO},
    {"bandwidth-gb-s", required_argument, NULL, O_BW},
    {"links", required_argument, NULL, O_LINKS},
    {"link-gb-s", required_argument, NULL, O_LINK_BW},
    {"intra-latency-us", required_argument, NULL, O_LAT_IN},
    {"nic-gb-s", required_argument, NULL, O_NIC},
    {"inter-latency-us", required_argument, NULL, O_LAT_OUT},
    {"explain", no_argument, NULL, O_EXPLAIN}, {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0}};
static const char *const OPS[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all", "p2p"};

/* collective's options: the collective, and topology values copied as
 * plain scalars into the scenario text. */
typedef struct {
    int op; /* index in OPS, -1 = not given */
    double bytes;
    long long n, k; /* group size, stride */
    const char *cluster, *gpn, *topo, *bw, *links, *link_bw, *lat_in, *nic, *lat_out;
    bool cluster_given; /* --cluster, not the default */
    bool explain, help;
} collective_options;

/* The slot of a topology option (a plain scalar), NULL for the others. */
static const char **collective_slot(collective_options *o, int c)
{
    switch (c) {
    case O_CLUSTER: return &o->cluster;
    case O_GPN: return &o->gpn;
    case O_TOPO: return &o->topo;
    case O_BW: return &o->bw;
    case O_LINKS: return &o->links;
    case O_LINK_BW: return &o->link_bw;
    case O_LAT_IN: return &o->lat_in;
    case O_NIC: return &o->nic;
    case O_LAT_OUT: return &o->lat_out;
    default: return NULL;
    }
}

/* One option c with value optarg. */
static pe_status collective_option(collective_options *o, int c, char **argv, pe_error *err)
{
    const char **slot = collective_slot(o, c);
    pe_status st = PE_OK;
    switch (c) {
    case O_OP:
        for (int i = 0; i < 5; i++)
            if (strcmp(optarg, OPS[i]) == 0)
                o->op = i;
        if (o->op < 0)
            st = pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                         "--op: unknown collective '%s' (all-reduce, reduce-scatter, "
                         "all-gather, all-to-all, p2p)", optarg);
        break;
    case O_BYTES:
        st = parse_number("bytes", optarg, true, &o->bytes, err);
        if (st == PE_OK && !(o->bytes > 0))
            st = pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "--bytes must be > 0");
        break;
    case O_GROUP: st = parse_whole("group", optarg, &o->n, err); break;
    case O_STRIDE: st = parse_whole("stride", optarg, &o->k, err); break;
    case O_EXPLAIN: o->explain = true; break;
    case O_HELP: fputs(command_help_text("collective"), stdout); o->help = true; break;
    case O_CLUSTER:
        o->cluster_given = true;
        st = scalar_ok("cluster", optarg, err);
        *slot = optarg;
        break;
    default:
        if (!slot)
            return bad_option("collective", argv, err);
        st = scalar_ok(COLLECTIVE_OPTIONS[c - O_OP].name, optarg, err);
        *slot = optarg;
    }
    return st;
}

static pe_status collective_parse(int argc, char **argv, collective_options *o, pe_error *err)
{
    int c;
    optind = 1;
    opterr = 0;
    pe_status st = spelled_out("collective", argc, argv, COLLECTIVE_OPTIONS, err);
    while (st == PE_OK && (c = getopt_long(argc, argv, "", COLLECTIVE_OPTIONS, NULL)) != -1) {
        st = collective_option(o, c, argv, err);
        if (o->help)
            return PE_OK;
    }
    if (st != PE_OK)
        return st;
    if (optind < argc)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "collective: unexpected argument '%s'", argv[optind]);
    if (o->op < 0 || o->bytes < 0 || !o->n)
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "collective: --op, --bytes and --group are required (see --help)");
    return PE_OK;
}

/* A cluster big enough for the group; the model is a placeholder the
 * loader needs and the collective never reads. */
static pe_status collective_scenario_text(text *t, const collective_options *o, pe_error *err)
{
    add(t, "schema: planeval/v1\nname: collective\n"
           "model: {layers: 1, hidden: 8, heads: 1, vocab: 8, seq_len: 8}\n"
           "training: {global_batch: 1}\nplans: [{dp: 1}]\ncluster:\n");
    add_opt(t, "cluster", o->cluster, "  preset: %s\n", o->cluster);
    if (o->gpn)
        add_opt(t, "gpus-per-node", o->gpn, "  gpus_per_node: %s\n", o->gpn);
    if (o->topo || o->bw || o->links || o->link_bw || o->lat_in) {
        add(t, "  intra_node:\n");
        if (o->topo)
            add_opt(t, "topology", o->topo, "    topology: %s\n", o->topo);
        if (o->bw)
            add_opt(t, "bandwidth-gb-s", o->bw, "    bandwidth_gb_s: %s\n", o->bw);
        if (o->links)
            add_opt(t, "links", o->links, "    links: %s\n", o->links);
        if (o->link_bw)
            add_opt(t, "link-gb-s", o->link_bw, "    link_gb_s: %s\n", o->link_bw);
        if (o->lat_in)
            add_opt(t, "intra-latency-us", o->lat_in, "    latency_us: %s\n", o->lat_in);
    }
    if (o->nic || o->lat_out) {
        add(t, "  inter_node:\n");
        if (o->nic)
            add_opt(t, "nic-gb-s", o->nic, "    nic_gb_s: %s\n", o->nic);
        if (o->lat_out)
            add_opt(t, "inter-latency-us", o->lat_out, "    latency_us: %s\n", o->lat_out);
    }
    /* enough nodes for any placement of the group (n·k GPUs of ranks), at
     * least 2 so that the preset's inter_node keys apply */
    long long nodes;
    if (__builtin_mul_overflow(o->n, o->k, &nodes) || nodes >= (1LL << 40)) {
        return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                       "collective: group*stride is more GPUs than a cluster can have here");
    }
    add(t, "  nodes: %lld\n", nodes + 1);
    return PE_OK;
}

/* The collective's time (docs/model.md §5) and bandwidths on s's cluster. */
static void collective_print(const collective_options *o, const pe_scenario *s)
{
    const long long n = o->n, k = o->k;
    const double bytes = o->bytes;
    pe_net net = comm_net(&s->cluster);
    pe_group g = comm_group(&net, n, k);
    double time;
    double factor; /* NCCL bus-bandwidth factor: busbw = algbw · factor */
    switch (o->op) {
    case 0: time = comm_all_reduce(&net, &g, bytes); factor = 2.0 * (n - 1) / (double)n; break;
    case 1:
    case 2: time = comm_reduce_scatter(&net, &g, bytes); factor = (n - 1) / (double)n; break;
    case 3: time = comm_all_to_all(&net, &g, bytes); factor = (n - 1) / (double)n; break;
    default: time = comm_p2p(&net, &g, bytes); factor = 1.0; break;
    }
    printf("op                %s\n", OPS[o->op]);
    printf("bytes             %.6g\n", bytes);
    printf("group             n=%lld stride=%lld: %g per node (n_in) x %g nodes (n_out), %s\n", n,
           k, g.n_in, g.n_out, pe_tier_name(comm_tier(&g)));
    printf("time_s            %.6g\n", time);
    if (time > 0) {
        printf("algbw_gb_s        %.6g   (bytes / time)\n", bytes / time / 1e9);
        printf("busbw_gb_s        %.6g   (algbw x %.4g, nccl-tests convention)\n",
               bytes / time / 1e9 * factor, factor);
    }
    if (o->explain)
        explain_collective(stdout, &s->cluster, o->op, bytes, n, k);
}

int calc_collective(int argc, char **argv, const pe_catalog *catalog, pe_error *err)
{
    collective_options o = {.op = -1, .bytes = -1, .n = 0, .k = 1, .cluster = "mi300x-node"};
    pe_status st = collective_parse(argc, argv, &o, err);
    if (st != PE_OK || o.help)
        return st;
    text t = {0}; /* 8 KB on the stack: no state kept between calls */
    if ((st = collective_scenario_text(&t, &o, err)) != PE_OK)
        return st;
    pe_scenario s;
    st = load_scenario_buffer("<collective options>", t.data, t.len, catalog, &s, err);
    if (st != PE_OK) {
        name_options(&t, "collective", err);
        return st;
    }
    print_cluster_line(catalog, o.cluster, o.cluster_given, NULL, &s.cluster);
    collective_print(&o, &s);
    scenario_free(&s);
    return PE_OK;
}

/* --catalog DIR (or --catalog=DIR) anywhere among a calculator's options,
 * as run takes it: taken out of argv (*argc shrinks), its DIR in *dir. */
static pe_status take_catalog(const char *command, int *argc, char **argv, const char **dir,
                              pe_error *err)
{
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (strcmp(arg, "--catalog") == 0) {
            if (i + 1 >= *argc)
                return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0, "%s: --catalog needs a directory",
                               command);
            value = argv[++i];
        } else if (strncmp(arg, "--catalog=", 10) == 0) {
            value = arg + 10;
        } else {
            argv[kept++] = argv[i];
            continue;
        }
        if (*dir)
            return pe_fail(err, PE_BAD_INPUT, NULL, 0, 0,
                           "%s: --catalog given twice ('%s' and '%s'): give one directory", command,
                           *dir, value);
        *dir = value;
    }
    *argc = kept;
    argv[kept] = NULL;
    return PE_OK;
}

/* A calculator: its own options, and --catalog DIR anywhere among them
 * (bubble takes it and uses no preset). */
int cli_calculator(int argc, char **argv, const cli_context *ctx)
{
    (void)ctx;
    const char *command = argv[0];
    const char *catalog_dir = NULL;
    pe_error err = {0};
    pe_catalog *catalog = NULL;
    int status = PE_OK;
    if ((status = take_catalog(command, &argc, argv, &catalog_dir, &err)) != PE_OK) {
        /* refused below */
    } else if (strcmp(command, "bubble") == 0) {
        status = calc_bubble(argc, argv, &err);
    } else if ((status = catalog_open(catalog_dir, &catalog, &err)) == PE_OK) {
        status = strcmp(command, "memory") == 0 ? calc_memory(argc, argv, catalog, &err)
                                                : calc_collective(argc, argv, catalog, &err);
    }
    if (status != PE_OK)
        cli_print_error(&err);
    catalog_free(catalog);
    return status;
}
