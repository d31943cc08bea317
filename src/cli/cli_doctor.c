/* truecost doctor: runs the checks and prints each with its evidence and
 * fix, as text or JSON; the exit status is the worst result. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_json.h"
#include "cli.h"
#include "doctor/doctor.h"

void tc_cmd_doctor_help(FILE *out)
{
    fputs("Usage: truecost doctor [--json] [--root DIR] [--no-server]\n"
          "\n"
          "Diagnose what stops a GPU, CPU energy readings, a local inference server or\n"
          "truecost itself from working: NVIDIA (module, DKMS, Secure Boot, nouveau,\n"
          "device nodes, NVML, driver/library mismatch), AMD (amdgpu, /dev/kfd, render\n"
          "nodes, render/video groups, ROCm, HSA_OVERRIDE_GFX_VERSION), WSL2 (/dev/dxg),\n"
          "RAPL, the usual local server ports, the results database. Each check prints\n"
          "ok, WARN or FAIL with what it read and the fix.\n"
          "\n"
          "Options:\n"
          "  --json           one JSON object: {checks:[{id,title,status,evidence,fix}],\n"
          "                   status}\n"
          "  --root DIR       read every file (/proc, /sys, /dev, /etc, /opt, /var) under\n"
          "                   DIR instead of / (a copied tree, tests); device nodes are\n"
          "                   checked for existence only\n"
          "  --no-server      skip the checks that connect to local servers\n"
          "  --user NAME      check render/video membership of NAME (default: you)\n"
          "  --nvml-lib PATH  load NVML from PATH instead of libnvidia-ml.so.1\n"
          "  --rocm-lib PATH  load ROCm SMI from PATH instead of librocm_smi64.so\n"
          "\n"
          "Exit status: 0 every check ok; 1 warnings only (also a usage error);\n"
          "2 a check failed (or --root is not a directory).\n",
          out);
}

enum { OPT_JSON = 256, OPT_ROOT, OPT_NOSERVER, OPT_USER, OPT_NVML, OPT_ROCM };

static const struct option options[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"root", required_argument, NULL, OPT_ROOT},
    {"no-server", no_argument, NULL, OPT_NOSERVER},
    {"user", required_argument, NULL, OPT_USER},
    {"nvml-lib", required_argument, NULL, OPT_NVML},
    {"rocm-lib", required_argument, NULL, OPT_ROCM},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct doc_args {
    int json, help;
    tc_doctor_config cfg;
} doc_args;

static int parse(int argc, char **argv, doc_args *a)
{
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_ROOT:
            a->cfg.root = optarg;
            break;
        case OPT_NOSERVER:
            a->cfg.no_server = 1;
            break;
        case OPT_USER:
            a->cfg.user = optarg;
            break;
        case OPT_NVML:
            a->cfg.nvml_lib = optarg;
            break;
        case OPT_ROCM:
            a->cfg.rocm_lib = optarg;
            break;
        case 'h':
            a->help = 1;
            break;
        default:
            tc_cli_error("doctor: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        tc_cli_error("doctor: unexpected argument '%s'", argv[optind]);
        return -1;
    }
    return 0;
}

static void print_text(const tc_doctor_report *r)
{
    static const char *const label[] = {"ok  ", "WARN", "FAIL", "skip"};
    for (int i = 0; i < r->n; i++) {
        const tc_doctor_check *k = &r->checks[i];
        printf("%s %s\n", label[k->status], k->title);
        if (k->evidence[0])
            printf("     %s\n", k->evidence);
        if (k->fix[0] && k->status != TC_DOCTOR_SKIP)
            printf("     fix: %s\n", k->fix);
    }
    printf("\n%s\n", r->status == 2   ? "Some checks failed: see the fixes above."
                     : r->status == 1 ? "Warnings only: see the fixes above."
                                      : "Everything checked is fine.");
}

static int print_json(const tc_doctor_report *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->n; i++) {
        const tc_doctor_check *k = &r->checks[i];
        /* evidence quotes the host's own files: not always UTF-8 */
        json_array_append_new(
            arr, json_pack("{s:s, s:o, s:s, s:o, s:o}", "id", k->id, "title",
                           tc_json_string(k->title), "status", tc_doctor_status_name(k->status),
                           "evidence", tc_json_string(k->evidence), "fix", tc_json_string(k->fix)));
    }
    json_t *o = json_pack("{s:o, s:i}", "checks", arr, "status", r->status);
    char *text = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
    json_decref(o);
    if (!text) {
        tc_cli_error("doctor: out of memory");
        return -1;
    }
    puts(text);
    free(text);
    return 0;
}

int tc_cmd_doctor(int argc, char **argv)
{
    doc_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("doctor");
    if (a.help) {
        tc_cmd_doctor_help(stdout);
        return TC_EXIT_OK;
    }
    tc_doctor_report *r = malloc(sizeof *r);
    char err[512];
    int code = TC_EXIT_RUNTIME;
    if (!r) {
        tc_cli_error("doctor: out of memory");
        return TC_EXIT_RUNTIME;
    }
    if (tc_doctor_run(&a.cfg, r, err, sizeof err) != TC_OK) {
        tc_cli_error("doctor: %s", err);
        goto done;
    }
    if (a.json ? print_json(r) < 0 : (print_text(r), 0))
        goto done;
    code = r->status;
done:
    free(r);
    return code;
}
