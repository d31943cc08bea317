/* libFuzzer target: the safetensors header reader and the index reader
 * (modelfile_safetensors.c), fed any bytes. The first byte picks the
 * reader. Accepted tensors lie inside the file; every rejection explains
 * itself. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "modelfile/modelfile_safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(tc_err rc, const char *err, size_t errlen, const char *file)
{
    if (rc != TC_OK && rc != TC_ERR_NOMEM &&
        (strncmp(err, file, strlen(file)) != 0 || !memchr(err, 0, errlen)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *b = data + 1;
    size_t len = size - 1;
    char err[512] = "";
    if (data[0] & 1) {
        tc_safetensors_index ix;
        tc_err rc =
            tc_modelfile_safetensors_index("fuzz.json", (const char *)b, len, &ix, err, sizeof err);
        check_err(rc, err, sizeof err, "fuzz.json");
        for (size_t i = 0; rc == TC_OK && i < ix.n; i++)
            if (!ix.files[i][0] || ix.files[i][0] == '/' ||
                (i && strcmp(ix.files[i - 1], ix.files[i]) >= 0))
                __builtin_trap(); /* relative, sorted, each once */
        if (rc == TC_OK)
            tc_modelfile_safetensors_index_free(&ix);
        return 0;
    }
    tc_model_shape m;
    memset(&m, 0, sizeof m);
    size_t need = 0;
    tc_err rc =
        tc_modelfile_safetensors_parse("fuzz.safetensors", b, len, len, &m, &need, err, sizeof err);
    check_err(rc, err, sizeof err, "fuzz.safetensors: offset ");
    if (rc == TC_OK && (need != 0 || m.weight_bytes > len))
        __builtin_trap(); /* the data is inside the file */
    return 0;
}
