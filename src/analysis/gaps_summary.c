/* The decision's view of a saved gap table. */
#include "analysis/gaps_summary.h"

#include <math.h>
#include <string.h>

#include <jansson.h>

#include "analysis/gaps.h"

static int is_key(const char *risk, double share)
{
    return strcmp(risk, "high") == 0 || strcmp(risk, "medium-high") == 0 ||
           share >= TC_GAPS_KEY_SHARE;
}

/* One entry of "ops": its status, risk, share and alternative. */
static tc_err count_op(const char *name, size_t i, json_t *op, tc_gaps_summary *out, char *err,
                       size_t errlen)
{
    json_t *alt = json_object_get(op, "alternative");
    const char *status = json_string_value(json_object_get(op, "status"));
    const char *risk = json_string_value(json_object_get(op, "risk"));
    json_t *share_j = json_object_get(op, "share");
    double share = json_number_value(share_j);
    if (!status || !risk || !json_is_number(share_j) || !(share >= 0 && share <= 1) ||
        (alt && !json_is_null(alt) && !json_is_string(alt)))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: ops[%zu]: expected \"status\", \"risk\" (strings), \"share\" (0..1) "
                       "and \"alternative\" (a string or null): is it 'truecost gaps --json' "
                       "output?",
                       name, i);
    out->ops++;
    out->fallback += strcmp(status, "fallback") == 0;
    if (strcmp(status, "unknown") == 0) {
        out->unknown++;
        out->key_unchecked += is_key(risk, share);
        return TC_OK;
    }
    if (strcmp(status, "missing") != 0)
        return TC_OK;
    out->missing++;
    if (!is_key(risk, share))
        return TC_OK;
    out->key_gaps++;
    if (!json_is_string(alt) || !json_string_length(alt)) {
        out->key_without_alternative++;
        out->share_without_alternative += share;
    }
    return TC_OK;
}

tc_err tc_gaps_summary_parse(const char *name, const char *text, size_t len, tc_gaps_summary *out,
                             char *err, size_t errlen)
{
    if (!name || !text || !out)
        return tc_fail(err, errlen, TC_ERR_INVALID, "gaps summary: NULL argument");
    memset(out, 0, sizeof *out);
    tc_err e = tc_gaps_read_t_op_json(name, text, len, &out->t_low, &out->t_mode, &out->t_high, err,
                                      errlen);
    if (e != TC_OK)
        return e;
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je); /* parsed above: valid */
    json_t *ops = json_object_get(doc, "ops");
    if (!json_is_array(ops)) {
        json_decref(doc);
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: no \"ops\" array: is it 'truecost gaps --json' output?", name);
    }
    size_t i;
    json_t *op;
    json_array_foreach(ops, i, op)
    {
        if ((e = count_op(name, i, op, out, err, errlen)) != TC_OK)
            break;
    }
    json_decref(doc);
    if (e != TC_OK)
        memset(out, 0, sizeof *out);
    return e;
}
