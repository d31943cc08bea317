/* The soak's look at the server: its local process (for its RSS) and its
 * identity (to tell a restart). */
#include <ctype.h>
#include <pthread.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "core/tc_buf.h"
#include "measure_soak_internal.h"

int tc_measure_soak_endpoint_port(const tc_endpoint *ep)
{
    const char *p = strstr(ep->base, "://");
    int https = strncmp(ep->base, "https", 5) == 0;
    p = p ? p + 3 : ep->base;
    const char *at = strchr(p, '@'), *slash = strchr(p, '/');
    if (at && (!slash || at < slash))
        p = at + 1;
    if (*p == '[') { /* an IPv6 address */
        p = strchr(p, ']');
        if (!p)
            return -1;
        p++;
    } else {
        while (*p && *p != ':' && *p != '/')
            p++;
    }
    if (*p != ':')
        return https ? 443 : 80;
    long port = strtol(p + 1, NULL, 10);
    return port > 0 && port < 65536 ? (int)port : -1;
}

int tc_measure_soak_listen_line(const char *line, int port, unsigned long *inode)
{
    char local[64], remote[64], state[8];
    unsigned long ino = 0;
    /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
    if (sscanf(line, " %*s %63s %63s %7s %*s %*s %*s %*s %*s %lu", local, remote, state, &ino) != 4)
        return 0;
    const char *colon = strrchr(local, ':');
    if (!colon || strcmp(state, "0A") != 0)
        return 0;
    char *end;
    long p = strtol(colon + 1, &end, 16);
    if (end == colon + 1 || *end || p != port)
        return 0;
    *inode = ino;
    return 1;
}

/* Inodes of the sockets listening on `port` in one /proc/net table. */
static size_t listen_inodes(const char *path, int port, unsigned long *out, size_t cap, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return n;
    char line[512];
    if (!fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return n;
    }
    while (n < cap && fgets(line, sizeof line, f))
        if (tc_measure_soak_listen_line(line, port, &out[n]))
            n++;
    fclose(f);
    return n;
}

/* Whether process `pid` holds one of the sockets. */
static int holds_socket(const char *proc_root, const char *pid, const unsigned long *inodes,
                        size_t n)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s/fd", proc_root, pid);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        char path[800], link[64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(path, link, sizeof link - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        unsigned long inode;
        if (sscanf(link, "socket:[%lu]", &inode) != 1)
            continue;
        for (size_t i = 0; i < n && !found; i++)
            found = inodes[i] == inode;
    }
    closedir(d);
    return found;
}

int tc_measure_soak_server_pid(const char *proc_root, int port)
{
    unsigned long inodes[16];
    char path[512];
    size_t n = 0;
    if (!proc_root)
        proc_root = "/proc";
    snprintf(path, sizeof path, "%s/net/tcp", proc_root);
    n = listen_inodes(path, port, inodes, 16, n);
    snprintf(path, sizeof path, "%s/net/tcp6", proc_root);
    n = listen_inodes(path, port, inodes, 16, n);
    if (!n)
        return -1;
    DIR *d = opendir(proc_root);
    if (!d)
        return -1;
    struct dirent *e;
    int pid = -1;
    while (pid < 0 && (e = readdir(d)))
        if (isdigit((unsigned char)e->d_name[0]) && holds_socket(proc_root, e->d_name, inodes, n))
            pid = atoi(e->d_name);
    closedir(d);
    return pid;
}

int64_t tc_measure_soak_process_rss(const char *proc_root, int pid)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d/statm", proc_root ? proc_root : "/proc", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long size, resident;
    int ok = fscanf(f, "%lld %lld", &size, &resident) == 2;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return ok ? (int64_t)resident * (page > 0 ? page : 4096) : -1;
}

/* ---- the server's identity ------------------------------------------------ */

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    tc_buf *b = userp;
    size_t n = size * nmemb;
    if (b->len + n > 1 << 20) /* an identity is small; more is not read */
        return 0;
    tc_buf_append(b, data, n);
    return n;
}

/* GET base + path as JSON; NULL when it failed in any way. */
static json_t *get_json(const tc_endpoint *ep, const char *key, const char *path)
{
    char url[1100];
    tc_endpoint_url(ep, path, url, sizeof url);
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    tc_buf body = {0};
    struct curl_slist *hdr = NULL;
    char auth[600];
    if (key) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", key);
        hdr = curl_slist_append(NULL, auth);
        memset(auth, 0, sizeof auth);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
    long status = 0;
    CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    json_t *doc = rc == CURLE_OK && status == 200 && body.data
                      ? json_loadb(body.data, body.len, 0, NULL)
                      : NULL;
    curl_easy_cleanup(h);
    for (struct curl_slist *x = hdr; x; x = x->next)
        memset(x->data, 0, strlen(x->data));
    curl_slist_free_all(hdr);
    tc_buf_free(&body);
    return doc;
}

int tc_measure_soak_identity_read(const tc_endpoint *ep, const char *key, tc_soak_identity *id)
{
    memset(id, 0, sizeof *id);
    json_t *v = get_json(ep, key, "/api/version");
    if (!v)
        v = get_json(ep, key, "/version"); /* vLLM */
    const char *ver = json_string_value(json_object_get(v, "version"));
    snprintf(id->version, sizeof id->version, "%s", ver ? ver : "");
    ver = id->version[0] ? id->version : NULL; /* still says whether it answered */
    json_decref(v);
    json_t *m = get_json(ep, key, "/v1/models");
    json_t *data = json_object_get(m, "data"), *e;
    size_t i, n = 0;
    json_array_foreach(data, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "id"));
        if (name && n < sizeof id->models - 2)
            n += (size_t)snprintf(id->models + n, sizeof id->models - n, "%s;", name);
        json_int_t created = json_integer_value(json_object_get(e, "created"));
        if (i == 0)
            id->created = (int64_t)created;
    }
    id->ok = ver != NULL || json_is_array(data);
    json_decref(m);
    return id->ok ? 0 : -1;
}

/* ---- the prober thread ------------------------------------------------------- */

struct tc_soak_prober {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int asked, quit, fresh;
    tc_soak_identity latest;
    tc_endpoint ep;
    char *key;
};

static void *prober_run(void *arg)
{
    tc_soak_prober *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->asked && !p->quit)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        p->asked = 0;
        pthread_mutex_unlock(&p->lock);
        tc_soak_identity id;
        tc_measure_soak_identity_read(&p->ep, p->key, &id);
        pthread_mutex_lock(&p->lock);
        p->latest = id;
        p->fresh = 1;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

tc_soak_prober *tc_measure_soak_prober_start(const tc_endpoint *ep, const char *key)
{
    tc_soak_prober *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ep = *ep;
    p->key = key ? strdup(key) : NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    if ((key && !p->key) || pthread_create(&p->thread, NULL, prober_run, p) != 0) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->wake);
        free(p->key);
        free(p);
        return NULL;
    }
    return p;
}

void tc_measure_soak_prober_ask(tc_soak_prober *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->asked = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

int tc_measure_soak_prober_take(tc_soak_prober *p, tc_soak_identity *out)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    int fresh = p->fresh;
    if (fresh)
        *out = p->latest;
    p->fresh = 0;
    pthread_mutex_unlock(&p->lock);
    return fresh;
}

void tc_measure_soak_prober_stop(tc_soak_prober *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    if (p->key) {
        memset(p->key, 0, strlen(p->key)); /* an API key must not linger */
        free(p->key);
    }
    memset(&p->ep, 0, sizeof p->ep); /* the base URL may hold credentials */
    free(p);
}
