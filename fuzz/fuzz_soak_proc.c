/* libFuzzer target: a line of /proc/net/tcp as the soak reads it to find
 * the local server's process, fed whatever a kernel or a broken file could
 * hold. The first two bytes are the port. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure_soak.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int port = data[0] << 8 | data[1];
    char *line = malloc(size - 1);
    if (!line)
        return 0;
    memcpy(line, data + 2, size - 2);
    line[size - 2] = '\0';
    unsigned long inode = 0;
    if (tc_measure_soak_listen_line(line, port, &inode) && !strstr(line, "0A"))
        __builtin_trap(); /* only a listening socket is taken */
    free(line);
    return 0;
}
