/* A resumed soak goes on with the load it started with: the load a
 * resume would send, compared with the stored run's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure_internal.h"

/* The first load-defining field in which now differs from was, described
 * into what ("-c 16 then, 8 now"); 0 when none does. */
int tc_measure_load_differs(const tc_run_info *was, const tc_run_info *now, char *what, size_t len)
{
    if (strcmp(was->endpoint, now->endpoint) != 0)
        snprintf(what, len, "the URL was %s, now %s", was->endpoint, now->endpoint);
    else if (was->api != now->api)
        snprintf(what, len, "the API was %s, now %s", tc_api_name(was->api), tc_api_name(now->api));
    else if (strcmp(was->model, now->model) != 0)
        snprintf(what, len, "the model was '%s', now '%s'", was->model, now->model);
    else if (was->arrival != now->arrival)
        snprintf(what, len, "the arrivals were %s, now %s", tc_arrival_name(was->arrival),
                 tc_arrival_name(now->arrival));
    else if (was->arrival == TC_ARRIVAL_CLOSED && was->concurrency != now->concurrency)
        snprintf(what, len, "-c was %d, now %d", was->concurrency, now->concurrency);
    else if (fabs(was->rate - now->rate) > 1e-9 * fmax(1, was->rate))
        snprintf(what, len, "--rate was %g, now %g", was->rate, now->rate);
    else if (fabs(was->burstiness - now->burstiness) > 1e-9 * fmax(1, was->burstiness))
        snprintf(what, len, "--burstiness was %g, now %g", was->burstiness, now->burstiness);
    else if (was->max_concurrency != now->max_concurrency)
        snprintf(what, len, "--max-concurrency was %d, now %d", was->max_concurrency,
                 now->max_concurrency);
    else if (was->max_tokens != now->max_tokens)
        snprintf(what, len, "--max-tokens was %lld, now %lld", (long long)was->max_tokens,
                 (long long)now->max_tokens);
    else if (was->prompt_set[0] && strcmp(was->prompt_set, now->prompt_set) != 0)
        snprintf(what, len, "the prompts were %s, now %s", was->prompt_set, now->prompt_set);
    else
        return 0;
    return 1;
}
