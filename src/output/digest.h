/* digest.h — CRC-32 (zlib's crc32, the ISO-HDLC polynomial) of bytes and
 * of files. It is how planeval tells damage from data: the checksum over a
 * checkpoint's body, and in each summary the checksums of the scenario text
 * and of the report written beside it, which `merge` checks. */
#ifndef PLANEVAL_DIGEST_H
#define PLANEVAL_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* crc continued over n more bytes; start from 0. */
uint32_t digest_crc32(uint32_t crc, const void *data, size_t n);

/* crc continued over a file's bytes. */
pe_status digest_file_crc32(const char *path, uint32_t *crc, pe_error *err);

#endif
