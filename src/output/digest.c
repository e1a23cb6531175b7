/* digest.c — zlib's crc32 over buffers of any size and over files. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "core/regular_file.h"
#include "output/digest.h"

uint32_t digest_crc32(uint32_t crc, const void *data, size_t n)
{
    const Bytef *p = data;
    uLong c = crc;
    while (n > 0) { /* zlib takes a uInt length */
        uInt part = n > UINT_MAX ? UINT_MAX : (uInt)n;
        c = crc32(c, p, part);
        p += part;
        n -= part;
    }
    return (uint32_t)c;
}

pe_status digest_file_crc32(const char *path, uint32_t *crc, pe_error *err)
{
    FILE *fp;
    pe_status opened = regular_file_open(path, &fp, NULL, err);
    if (opened != PE_OK)
        return opened;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        *crc = digest_crc32(*crc, buf, n);
    bool failed = ferror(fp);
    fclose(fp);
    if (failed)
        return pe_fail(err, PE_INTERNAL, path, 0, 0, "read failed");
    return PE_OK;
}
