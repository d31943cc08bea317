/* Command-line fallbacks for hosts where the vendor libraries cannot be
 * loaded: `nvidia-smi` (backend "nvidia-smi") and `rocm-smi` (backend
 * "rocm-smi"). Each sample runs the command once for all its devices (no
 * shell: fork/exec with pipes, output capped at TC_SMI_MAX_OUTPUT, killed
 * and reaped after TC_SMI_TIMEOUT_MS) and parses what it prints; the cached
 * reading serves the other devices of the same tick.
 *
 * nvidia-smi: `--query-gpu=<columns> --format=csv,noheader,nounits`; the
 * columns are probed once at init with `--help-query-gpu`, and one the
 * driver does not list is left out of the query (its field stays invalid).
 * power.draw is a 1-second average on Ampere and newer, so power_instant is
 * 0; there is no energy counter (TC_TF_ENERGY never set).
 *
 * rocm-smi: `--showproductname --showpower --showuse --showmemuse --showtemp
 * --showmeminfo vram --showenergycounter --json`, one object per "cardN".
 *
 * The parsers take bytes, so tests and the fuzzer feed them directly. */
#ifndef TC_TELEM_SMI_H
#define TC_TELEM_SMI_H

#include <stddef.h>

#include "telem.h"

extern const tc_telem_backend tc_telem_nvidia_smi;
extern const tc_telem_backend tc_telem_rocm_smi;

#define TC_SMI_MAX_OUTPUT (256 * 1024) /* bytes of stdout kept; more is an error */
#define TC_SMI_TIMEOUT_MS 5000         /* per command run */
#define TC_SMI_MAX_GPUS 64

/* The nvidia-smi query columns, in query order; bit (1u << col) of a
 * column mask. INDEX and NAME are always queried. */
typedef enum tc_smi_col {
    TC_SMI_INDEX,       /* index */
    TC_SMI_NAME,        /* name */
    TC_SMI_DRIVER,      /* driver_version */
    TC_SMI_POWER,       /* power.draw, W */
    TC_SMI_UTIL_GPU,    /* utilization.gpu, % */
    TC_SMI_UTIL_MEM,    /* utilization.memory, % */
    TC_SMI_MEM_USED,    /* memory.used, MiB */
    TC_SMI_MEM_TOTAL,   /* memory.total, MiB */
    TC_SMI_TEMP,        /* temperature.gpu, degrees C */
    TC_SMI_CLOCK_SM,    /* clocks.sm, MHz */
    TC_SMI_CLOCK_MEM,   /* clocks.mem, MHz */
    TC_SMI_POWER_LIMIT, /* power.limit, W */
    TC_SMI_BUS_ID,      /* pci.bus_id */
    TC_SMI_NCOL
} tc_smi_col;

#define TC_SMI_ALL_COLS ((1u << TC_SMI_NCOL) - 1u)
#define TC_SMI_REQUIRED_COLS ((1u << TC_SMI_INDEX) | (1u << TC_SMI_NAME))

/* The query name of column col ("power.draw"), or NULL out of range. */
const char *tc_smi_col_name(int col);

/* One GPU as a command reported it. `s` holds the values with their
 * TC_TF_* bits (mono_ns 0); a field without its bit is 0. Strings are
 * NUL-terminated, "" when the command did not give them. */
typedef struct tc_smi_gpu {
    int index;       /* nvidia-smi's index, or N of rocm-smi's "cardN" */
    char name[128];  /* "NVIDIA H100 80GB HBM3"; rocm-smi: its "Card series" */
    char driver[64]; /* driver version (nvidia-smi only) */
    char bus_id[64]; /* "00000000:18:00.0" (nvidia-smi only) */
    tc_telem_sample s;
} tc_smi_gpu;

/* The columns of TC_SMI_ALL_COLS that an `nvidia-smi --help-query-gpu`
 * output (text[len], need not be NUL-terminated) lists as "name", plus
 * TC_SMI_REQUIRED_COLS. */
unsigned tc_smi_nvidia_columns(const char *text, size_t len);

/* Parses `nvidia-smi --query-gpu=<the columns of cols, in tc_smi_col order>
 * --format=csv,noheader,nounits` output: one GPU per line, fields split at
 * ',' and trimmed; "[N/A]", "[Not Supported]", any other "[...]", "N/A" and
 * "" leave the field invalid. Units: W -> mW (decimals), MiB -> bytes,
 * C -> milli-C; all but watts are integers.
 * Blank lines are skipped. Writes up to max GPUs into out and their count
 * into *n (0 on any error). TC_ERR_PARSE, naming the line and column, for a wrong field
 * count, a number that is not one or out of range, or an index that is
 * missing; TC_ERR_INVALID for more than max GPUs or cols without the
 * required columns. */
TC_MUST_CHECK tc_err tc_smi_parse_nvidia_csv(const char *text, size_t len, unsigned cols,
                                             tc_smi_gpu *out, int max, int *n, char *err,
                                             size_t errlen);

/* Parses `rocm-smi ... --json` output (anything before the first line that
 * starts with '{' is skipped: rocm-smi prints warnings there). Every
 * top-level key "cardN" is one GPU, sorted by N; other keys are ignored.
 * Values are strings (numbers accepted too); "N/A" and anything not a
 * number leave the field invalid. Keys are matched case-insensitively by
 * the pieces that stay the same across ROCm versions (*n is 0 on error):
 *   power:       contains "power" and "(w)", not "max"/"cap"/"limit"
 *                ("Average Graphics Package Power (W)", "Current Socket
 *                Graphics Package Power (W)": the latter sets power_instant)
 *   util:        starts with "gpu use" ("GPU use (%)")
 *   mem util:    "memory" with "use (%)" or "activity" ("GPU memory use
 *                (%)", "GPU Memory Read/Write Activity (%)"; "GPU Memory
 *                Allocated (VRAM%)" is allocation, not activity: ignored)
 *   temp / hot:  "temperature" with "edge" / "junction"
 *   memory:      "vram" and "used" -> used; "vram" and "total" -> total (B)
 *   energy:      "accumulated energy" ("Accumulated Energy (uJ)"); the raw
 *                "Energy counter" is ignored (its resolution varies)
 *   name:        "card series", else "card model"
 * TC_ERR_PARSE (with jansson's line and column) when it is not a JSON
 * object or no "cardN" key holds an object; TC_ERR_INVALID for more than
 * max cards. */
TC_MUST_CHECK tc_err tc_smi_parse_rocm_json(const char *text, size_t len, tc_smi_gpu *out, int max,
                                            int *n, char *err, size_t errlen);

/* What one command run gave. Free with tc_smi_output_free. */
typedef struct tc_smi_output {
    char *out; /* stdout, NUL-terminated, at most TC_SMI_MAX_OUTPUT bytes */
    size_t out_len;
    char *err; /* stderr, NUL-terminated, first 4 KiB */
    size_t err_len;
    int status; /* exit status; -1 when killed by a signal */
} tc_smi_output;

/* Runs argv[0] (looked up on PATH when it has no '/') with argv, no shell,
 * stdin from /dev/null, and collects its output. The child is killed and
 * reaped when it runs past timeout_ms or prints more than
 * TC_SMI_MAX_OUTPUT. TC_ERR_NOTFOUND when argv[0] does not exist (or is not
 * executable), TC_ERR_IO for a timeout, an oversized output or a failed
 * pipe/spawn (out is freed then); TC_OK otherwise, whatever the exit
 * status. */
TC_MUST_CHECK tc_err tc_smi_run(const char *const argv[], int timeout_ms, tc_smi_output *out,
                                char *err, size_t errlen);

void tc_smi_output_free(tc_smi_output *out); /* accepts NULL; zeroes it */

#endif
