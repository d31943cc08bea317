/* tc_env_collect: assembles the blocks of the fingerprint. */
#include <stdlib.h>
#include <string.h>

#include "env_internal.h"
#include "tc_version.h"

/* clang's __VERSION__ names itself ("Debian Clang 14.0.6"); gcc's is the
 * bare number. */
#if defined(__clang__)
#define TC_COMPILER __VERSION__
#elif defined(__GNUC__)
#define TC_COMPILER "gcc " __VERSION__
#else
#define TC_COMPILER "unknown"
#endif

/* The build type is a CMake notion unknown at run time; what the compiler
 * saw is: its version, optimisation, and sanitizers (which slow every
 * measurement down). */
static json_t *truecost_block(void)
{
    int asan = 0, optimized = 0;
#if defined(__SANITIZE_ADDRESS__)
    asan = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    asan = 1;
#endif
#endif
#ifdef __OPTIMIZE__
    optimized = 1;
#endif
    return json_pack("{s:s, s:o, s:{s:s, s:b, s:b}}", "version", TC_VERSION, "git",
                     tc_env_str(TC_VERSION_GIT), "build", "compiler", TC_COMPILER, "optimized",
                     optimized, "asan", asan);
}

/* $HOME/.ollama (under root) when it exists, else "/". */
static void default_store(const char *root, char *out, size_t len)
{
    const char *home = getenv("HOME");
    snprintf(out, len, "/");
    if (!home || !*home)
        return;
    char rel[2048];
    int n = snprintf(rel, sizeof rel, "%s/.ollama", home);
    if (n > 0 && (size_t)n < sizeof rel && tc_root_exists(root, rel))
        snprintf(out, len, "%s", rel);
}

/* The disk is looked up on the live host by the real path, in a tree by
 * the path as the tree's mount table names it. */
static json_t *disk_block(const tc_env_config *cfg, const char *root)
{
    char store[2048], full[4096];
    if (cfg->model_store)
        snprintf(store, sizeof store, "%s", cfg->model_store);
    else
        default_store(root, store, sizeof store);
    if (strcmp(root, "/") != 0)
        return tc_env_disk(root, store);
    if (tc_root_join(full, sizeof full, root, store) != TC_OK)
        return json_null();
    return tc_env_disk(root, full);
}

static int put(json_t *obj, const char *key, json_t *value)
{
    return value ? json_object_set_new(obj, key, value) : -1;
}

tc_err tc_env_collect(const tc_env_config *cfg, json_t **out, char *err, size_t errlen)
{
    tc_err rc;
    tc_env_config c = *cfg;
    const char *root = c.root && *c.root ? c.root : "/";
    if (c.timeout_s <= 0)
        c.timeout_s = 2;
    *out = NULL;
    json_t *fp = json_object();
    if (!fp || put(fp, "os", tc_env_os(root)) || put(fp, "cpu", tc_env_cpu(root)) ||
        put(fp, "memory_bytes", tc_env_memory(root)) || put(fp, "disk", disk_block(&c, root)) ||
        put(fp, "gpus", tc_env_gpus(&c, root))) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building the fingerprint");
        goto fail;
    }
    json_t *server = NULL;
    rc = tc_env_server(&c, &server, err, errlen);
    if (rc != TC_OK)
        goto fail;
    if (put(fp, "server", server) || put(fp, "truecost", truecost_block())) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building the fingerprint");
        goto fail;
    }
    *out = fp;
    return TC_OK;
fail:
    json_decref(fp);
    return rc;
}

void tc_env_free(json_t *fp)
{
    json_decref(fp);
}

tc_err tc_env_load(const char *path, json_t **out, char *err, size_t errlen)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    *out = NULL;
    if (!doc)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: line %d: %s (expected a fingerprint saved with "
                       "'truecost env --json > FILE')",
                       path, e.line, e.text);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: not a fingerprint (a JSON object from 'truecost env --json')", path);
    }
    *out = doc;
    return TC_OK;
}
