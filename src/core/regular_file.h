/* regular_file.h — opening a file that is given to be read (a scenario, a
 * catalog file, a report, a runs or priors CSV) only when it is a regular
 * file. A FIFO in its place would block the open, or the read, forever; a
 * directory fails only at the first read, with an I/O error for what is a
 * mistake of the input; a device never ends (/dev/zero) or says nothing
 * (/dev/null). Each is refused as bad input instead, before a byte is read. */
#ifndef PLANEVAL_REGULAR_FILE_H
#define PLANEVAL_REGULAR_FILE_H

#include <stdio.h>
#include <sys/stat.h>

#include "core/error.h"

/* *fp: path opened for reading, when path names a regular file (a symbolic
 * link to one is followed); sb (may be NULL): its fstat. Otherwise *fp is
 * NULL and the status is PE_BAD_INPUT: "cannot read the file: REASON" or
 * "not a regular file". The open does not block: it is made with
 * O_NONBLOCK, which is cleared once the file is known to be regular, and
 * the check is fstat of the descriptor read, so a file swapped between a
 * check and the open cannot pass. */
pe_status regular_file_open(const char *path, FILE **fp, struct stat *sb, pe_error *err);

#endif
