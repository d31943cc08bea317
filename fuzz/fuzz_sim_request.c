/* libFuzzer target: the simulator's request parser on every route. The
 * first byte picks the route; the rest is the body. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/sim_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    tc_sim_route route = (tc_sim_route)(data[0] % 5);
    tc_sim_request rq;
    char err[256];
    int rc = tc_sim_request_parse(route, (const char *)data + 1, size - 1, &rq, err, sizeof err);
    if (rc == 0) {
        /* A parsed request must be servable: bounded and NUL-terminated. */
        if (rq.max_tokens < 1 || rq.max_tokens > TC_SIM_MAX_TOKENS_LIMIT)
            __builtin_trap();
        if (memchr(rq.model, 0, sizeof rq.model) == NULL || rq.prompt_tokens < 0)
            __builtin_trap();
    } else if (rc != 400 || memchr(err, 0, sizeof err) == NULL || err[0] == '\0') {
        __builtin_trap(); /* every rejection explains itself */
    }
    return 0;
}
