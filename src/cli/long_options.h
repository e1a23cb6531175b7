/* long_options.h — long options spelled in full. getopt_long accepts any
 * unambiguous prefix of a long option, so `--gpus 16` silently meant
 * `--gpus-per-node 16`; every command checks its arguments here first. */
#ifndef PLANEVAL_LONG_OPTIONS_H
#define PLANEVAL_LONG_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/* Walk argv[first..argc) as getopt_long would (an option's separate value
 * is skipped, `--` ends the options) and check that every long option is
 * exactly one of `options`. False with a message ("unknown option '--gpus'
 * (did you mean --gpus-per-node?)") at the first that is not. */
bool long_options_spelled_out(int argc, char **argv, int first, const struct option *options,
                              const char *shortopts, char *msg, size_t size);

#endif
