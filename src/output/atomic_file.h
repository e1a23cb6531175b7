/* atomic_file.h — a file written whole or not at all: written to a
 * temporary file beside its destination, flushed to disk and renamed into
 * place, so a reader never sees half a file and a failed write leaves none.
 * Every file planeval writes goes through it (reports, summaries, HTML
 * pages, checkpoints, grades), so one cleaner knows every temporary a
 * killed process can leave behind. */
#ifndef PLANEVAL_ATOMIC_FILE_H
#define PLANEVAL_ATOMIC_FILE_H

#include <stdio.h>

#include "core/error.h"

typedef struct {
    FILE *fp;                   /* the temporary file; NULL once closed */
    char path[PE_PATH_MAX];     /* the destination */
    char tmp[PE_PATH_MAX + 64]; /* the temporary file's path */
} pe_atomic_file;

/* Make the destination's directories (mkdir -p) and open its temporary. */
pe_status atomic_file_open(pe_atomic_file *f, const char *path, pe_error *err);

/* Flush the temporary to disk and close it; f stays for publish or abort. */
pe_status atomic_file_finish(pe_atomic_file *f, pe_error *err);
/* Rename the finished temporary into place (removed if that fails). */
pe_status atomic_file_publish(pe_atomic_file *f, pe_error *err);
/* Finish, then publish; on a failure nothing is left. */
pe_status atomic_file_commit(pe_atomic_file *f, pe_error *err);
/* Close and remove the temporary. */
void atomic_file_abort(pe_atomic_file *f);

/* The temporary file for path: DIR/.NAME.tmp.HOST.PID, HOST this machine's
 * short name (at most PE_TEMP_HOST_MAX bytes). A file of that shape whose
 * host is this one and whose process is gone was left by a killed run. */
#define PE_TEMP_HOST_MAX 32
void atomic_file_temp_path(const char *path, char *buf, size_t size);

/* Remove the temporary files in dir left by dead processes of this host. */
void atomic_file_clean_stale(const char *dir);
/* The same in the directory of path (a file about to be written). */
void atomic_file_clean_stale_beside(const char *path);

/* Make every directory of path's parent (mkdir -p). */
pe_status atomic_file_make_parent_dirs(const char *path, pe_error *err);

#endif
