/* The one list of truecost's commands: main's dispatch, the global help,
 * `help --list` (which the man page reads) and the completion come from
 * it. A new command is one row here. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/tc_suggest.h"

const tc_cmd tc_cli_commands[] = {
    {"run", "measure an inference endpoint and store every request", tc_cmd_run},
    {"sweep", "measure a load sweep: throughput, latency, goodput and energy at each point",
     tc_cmd_sweep},
    {"soak", "a long run at a target load: outages, restarts, drift and leaks, PASS or FAIL",
     tc_cmd_soak},
    {"train", "measure a fine-tuning run: step time, throughput, memory, energy, warnings",
     tc_cmd_train},
    {"runs", "list the stored runs", tc_cmd_runs},
    {"show", "print a stored run's summary", tc_cmd_show},
    {"export", "write a stored run's requests, chunks or summary as CSV or JSON", tc_cmd_export},
    {"import", "copy the runs of another store (SQLite file or PostgreSQL) into this one",
     tc_cmd_import},
    {"cost", "price a stored run: cost per million output tokens under a cost profile",
     tc_cmd_cost},
    {"compare", "compare two runs or groups: ratios with confidence intervals, claim verdict",
     tc_cmd_compare},
    {"frontier", "cost per million tokens at equal interactivity, from one or two sweeps",
     tc_cmd_frontier},
    {"report", "one self-contained HTML report (or Markdown) with the charts of a decision",
     tc_cmd_report},
    {"roofline", "a stored run's decode speed against its GPU's bandwidth ceiling",
     tc_cmd_roofline},
    {"gaps", "the operator gap table: status, risk and time share of each operator, and T_op",
     tc_cmd_gaps},
    {"kernels", "profiler kernel tables: time per class, fallback suspects, the tuning list",
     tc_cmd_kernels},
    {"fit", "will a model and its workload fit a card's memory: each term, verdict per card",
     tc_cmd_fit},
    {"lockin", "the one-time cost of leaving an ecosystem, weighed against the hardware saving",
     tc_cmd_lockin},
    {"decide", "stay, pilot, hybrid or migrate: the checklist from evidence, with reasons",
     tc_cmd_decide},
    {"monitor", "show power, energy, utilisation and memory of every GPU and CPU package",
     tc_cmd_monitor},
    {"doctor", "diagnose GPU drivers, ROCm/CUDA, RAPL, local servers and truecost itself",
     tc_cmd_doctor},
    {"env", "print what changes a result: host, GPUs, drivers, server, model", tc_cmd_env},
    {"agent", "serve this box's GPU and CPU telemetry to Prometheus (/metrics, /env)",
     tc_cmd_agent},
    {"sim", "run a SIMULATED inference server (Ollama, OpenAI and llama.cpp APIs)", tc_cmd_sim},
};
const int tc_cli_n_commands = (int)(sizeof tc_cli_commands / sizeof tc_cli_commands[0]);

const tc_cmd *tc_cli_find_command(const char *name)
{
    for (int i = 0; i < tc_cli_n_commands; i++)
        if (strcmp(tc_cli_commands[i].name, name) == 0)
            return &tc_cli_commands[i];
    return NULL;
}

int tc_cli_unknown_command(const char *name)
{
    const char *names[tc_cli_n_commands + 1];
    for (int i = 0; i < tc_cli_n_commands; i++)
        names[i] = tc_cli_commands[i].name;
    names[tc_cli_n_commands] = "help";
    const char *guess = tc_suggest(name, names, tc_cli_n_commands + 1);
    if (guess)
        tc_app_error("unknown command '%s'; did you mean '%s'?", name, guess);
    else
        tc_app_error("unknown command '%s'", name);
    fputs("Run 'truecost --help' for the list of commands.\n", stderr);
    return TC_EXIT_USAGE;
}
