/* A bounded GET: libcurl easy handle, total timeout, body size cap. */
#include "telem_scrape.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_buf.h"
#include "core/tc_redact.h"

typedef struct sink {
    tc_buf b;
    size_t max;
    int over;
} sink;

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
    sink *s = arg;
    size_t len = size * n;
    if (s->b.len + len > s->max) {
        s->over = 1;
        return 0; /* aborts the transfer */
    }
    tc_buf_append(&s->b, p, len);
    return s->b.failed ? 0 : len;
}

static tc_err perform(CURL *h, sink *s, const char *url, char *err, size_t errlen)
{
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (s->over)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s: the answer is over %zu bytes", url,
                       s->max);
    if (s->b.failed)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    if (cc != CURLE_OK)
        return tc_fail(err, errlen, TC_ERR_NET, "%s: %s", url, curl_easy_strerror(cc));
    if (status == 401 || status == 403)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "%s: HTTP %ld: the bearer token is missing or wrong (name the variable "
                       "holding it with --telemetry-token-env)",
                       url, status);
    if (status != 200)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: HTTP %ld", url, status);
    return TC_OK;
}

tc_err tc_telem_http_get(const char *url, const char *token, int timeout_ms, size_t max_bytes,
                         char **body, size_t *len, char *err, size_t errlen)
{
    *body = NULL;
    *len = 0;
    char shown[1024]; /* what messages say: no password, no token */
    tc_redact_url(url, shown, sizeof shown);
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return tc_fail(err, errlen, TC_ERR_INVALID, "'%s': expected an http:// or https:// URL",
                       shown);
    CURL *h = curl_easy_init();
    if (!h)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "cannot start libcurl");
    sink s = {.max = max_bytes};
    struct curl_slist *hdr = curl_slist_append(NULL, "Accept: text/plain;version=0.0.4;q=1, "
                                                     "application/json;q=0.5, */*;q=0.1");
    char auth[1100];
    if (token && *token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        hdr = curl_slist_append(hdr, auth);
        memset(auth, 0, sizeof auth);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* the sampler is a thread */
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    tc_err rc = perform(h, &s, shown, err, errlen);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    if (rc != TC_OK) {
        tc_buf_free(&s.b);
        return rc;
    }
    if (!s.b.data)
        tc_buf_append(&s.b, "", 0);
    if (!s.b.data) {
        tc_buf_free(&s.b);
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    }
    *body = s.b.data;
    *len = s.b.len;
    return TC_OK;
}
