/* regular_file.c — see regular_file.h. */
#include "core/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

pe_status regular_file_open(const char *path, FILE **fp, struct stat *sb, pe_error *err)
{
    *fp = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "cannot read the file: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "cannot read the file: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pe_fail(err, PE_BAD_INPUT, path, 0, 0, "not a regular file");
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*fp = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "cannot read the file: %s", strerror(e));
    }
    if (sb)
        *sb = st;
    return PE_OK;
}
