/* atomic_file.c — temporary, fsync, rename (atomic_file.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "output/atomic_file.h"

pe_status atomic_file_make_parent_dirs(const char *path, pe_error *err)
{
    char dir[PE_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return PE_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return pe_fail(err, PE_INTERNAL, dir, 0, 0, "cannot create directory: %s",
                           strerror(errno));
        *p = '/';
    }
    if (dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return pe_fail(err, PE_INTERNAL, dir, 0, 0, "cannot create directory: %s",
                       strerror(errno));
    struct stat st; /* EEXIST: maybe a file of that name, not a directory */
    if (dir[0] && stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return pe_fail(err, PE_INTERNAL, dir, 0, 0,
                       "is not a directory: cannot write %s into it", slash + 1);
    return PE_OK;
}

/* This machine's short host name (up to the first '.'), at most
 * PE_TEMP_HOST_MAX bytes of [A-Za-z0-9_-]: a directory may be shared by
 * the nodes of a cluster, and a process id means something only on its own
 * host. */
static void host_tag(char *out)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    size_t n = 0;
    for (const char *h = host; *h && *h != '.' && n < PE_TEMP_HOST_MAX; h++)
        out[n++] = (*h >= 'a' && *h <= 'z') || (*h >= 'A' && *h <= 'Z') ||
                           (*h >= '0' && *h <= '9') || *h == '-'
                       ? *h
                       : '_';
    if (n == 0)
        out[n++] = '_';
    out[n] = '\0';
}

void atomic_file_temp_path(const char *path, char *buf, size_t size)
{
    char host[PE_TEMP_HOST_MAX + 1];
    host_tag(host);
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    snprintf(buf, size, "%.*s.%s.tmp.%s.%ld", dir_len, path, path + dir_len, host,
             (long)getpid());
}

/* The process id of a temporary file of this host (.NAME.tmp.HOST.PID),
 * or 0 when the name is not one. */
static long temp_file_pid(const char *name, const char *host)
{
    const char *dot = strrchr(name, '.');
    if (name[0] != '.' || !dot || !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1))
        return 0;
    size_t host_len = strlen(host);
    if ((size_t)(dot - name) < host_len + 5 || memcmp(dot - host_len, host, host_len) != 0 ||
        memcmp(dot - host_len - 5, ".tmp.", 5) != 0)
        return 0;
    return strtol(dot + 1, NULL, 10);
}

void atomic_file_clean_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return; /* nothing written there yet */
    char host[PE_TEMP_HOST_MAX + 1];
    host_tag(host);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = temp_file_pid(e->d_name, host);
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* not ours, or its writer may still be running */
        char path[PE_PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    closedir(d);
}

void atomic_file_clean_stale_beside(const char *path)
{
    char dir[PE_PATH_MAX] = ".";
    const char *slash = strrchr(path, '/');
    if (slash) {
        int len = slash == path ? 1 : (int)(slash - path);
        snprintf(dir, sizeof dir, "%.*s", len, path);
    }
    atomic_file_clean_stale(dir);
}

pe_status atomic_file_open(pe_atomic_file *f, const char *path, pe_error *err)
{
    memset(f, 0, sizeof *f);
    pe_status st = atomic_file_make_parent_dirs(path, err);
    if (st != PE_OK)
        return st;
    /* The rename would put a regular file in the place of whatever has the
     * name: given `-o /dev/null` (or a FIFO, a socket), as root, that is the
     * device itself gone for every program of the machine. Only a regular
     * file, a symbolic link (the link is replaced, not what it names) or a
     * name not yet taken is written. */
    struct stat sb;
    const int taken = lstat(path, &sb) == 0;
    /* A directory where a file is asked for is the user's mistake (`grade -o
     * out/`), bad input, not an I/O error found at the rename. */
    if (taken && S_ISDIR(sb.st_mode))
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "cannot write: it is a directory (give the path of a file in it)");
    /* So is a device, a FIFO or a socket given as an output: a path that
     * cannot hold a report, refused before anything is written (2, as the
     * directory; 3 stays for a write that fails). */
    if (taken && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0,
                       "cannot write: it is a device, a FIFO or a socket, not a regular file "
                       "(planeval replaces an output whole: give the path of a file)");
    snprintf(f->path, sizeof f->path, "%s", path);
    atomic_file_temp_path(path, f->tmp, sizeof f->tmp);
    f->fp = fopen(f->tmp, "w");
    if (!f->fp)
        return pe_fail(err, PE_INTERNAL, f->tmp, 0, 0, "cannot write: %s", strerror(errno));
    return PE_OK;
}

pe_status atomic_file_finish(pe_atomic_file *f, pe_error *err)
{
    pe_status st = PE_OK;
    if (fflush(f->fp) != 0 || ferror(f->fp))
        st = pe_fail(err, PE_INTERNAL, f->path, 0, 0, "write failed: %s", strerror(errno));
    /* on disk before the rename, so a crash cannot leave the new name on
     * an empty file; EINVAL: a file that cannot be synced (not on disk) */
    if (st == PE_OK && fsync(fileno(f->fp)) != 0 && errno != EINVAL)
        st = pe_fail(err, PE_INTERNAL, f->path, 0, 0, "write failed: %s", strerror(errno));
    if (fclose(f->fp) != 0 && st == PE_OK)
        st = pe_fail(err, PE_INTERNAL, f->path, 0, 0, "write failed: %s", strerror(errno));
    f->fp = NULL;
    return st;
}

pe_status atomic_file_publish(pe_atomic_file *f, pe_error *err)
{
    if (rename(f->tmp, f->path) == 0)
        return PE_OK;
    pe_status st = pe_fail(err, PE_INTERNAL, f->path, 0, 0, "cannot rename %s into place: %s",
                           f->tmp, strerror(errno));
    remove(f->tmp);
    return st;
}

pe_status atomic_file_commit(pe_atomic_file *f, pe_error *err)
{
    pe_status st = atomic_file_finish(f, err);
    if (st != PE_OK) {
        atomic_file_abort(f);
        return st;
    }
    return atomic_file_publish(f, err);
}

void atomic_file_abort(pe_atomic_file *f)
{
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    remove(f->tmp);
}
