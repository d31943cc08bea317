/* libFuzzer target: the --prompts file parser and the endpoint URL parser,
 * both fed outside text. The first byte picks which. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_body.h"
#include "bench/bench_prompts.h"
#include "bench/bench_url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void prompts(const char *text, size_t len)
{
    tc_prompts p;
    char err[256];
    if (tc_prompts_parse("fuzz", text, len, &p, err, sizeof err) != TC_OK) {
        if (!memchr(err, 0, sizeof err) || err[0] == '\0')
            __builtin_trap();
        return;
    }
    tc_buf b = {0};
    for (size_t i = 0; i < p.n; i++) /* every accepted prompt must make a body */
        if (tc_body_build(TC_API_OPENAI_CHAT, "m", &p.items[i], 8, &b) != TC_OK ||
            tc_body_build(TC_API_OLLAMA, "m", &p.items[i], 8, &b) != TC_OK)
            __builtin_trap();
    tc_buf_free(&b);
    tc_prompts_free(&p);
}

static void url(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return;
    memcpy(s, data, size);
    s[size] = '\0';
    tc_endpoint ep;
    char err[256];
    if (tc_endpoint_parse(s, &ep, err, sizeof err) == TC_OK) {
        /* credentials and queries never reach what is stored */
        const char *auth = strstr(ep.stored, "://");
        size_t authlen = auth ? strcspn(auth + 3, "/") : 0;
        if (!auth || memchr(auth + 3, '@', authlen) || strpbrk(ep.stored, "?#"))
            __builtin_trap();
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        prompts((const char *)data + 1, size - 1);
    else
        url(data + 1, size - 1);
    return 0;
}
