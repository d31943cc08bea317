/* truecost: what an AI inference platform really costs. Dispatches to the
 * subcommand named first on the command line. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"
#include "tc_version.h"

static const tc_cmd commands[] = {
    {"run", "measure an inference endpoint and store every request", tc_cmd_run},
    {"sweep", "measure a load sweep: throughput, latency, goodput and energy at each point",
     tc_cmd_sweep},
    {"soak", "a long run at a target load: outages, restarts, drift and leaks, PASS or FAIL",
     tc_cmd_soak},
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
#define N_COMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void print_version(void)
{
    if (TC_VERSION_GIT[0])
        printf("truecost %s (%s)\n", TC_VERSION, TC_VERSION_GIT);
    else
        printf("truecost %s\n", TC_VERSION);
}

static void print_help(FILE *out)
{
    fputs("Usage: truecost COMMAND [OPTIONS]\n"
          "\n"
          "Measure what an AI inference platform really costs: drive a running inference\n"
          "server with a fixed workload, measure latency, throughput and energy, and price it.\n"
          "\n"
          "Commands:\n",
          out);
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("  help CMD   show the options of CMD\n"
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "  -V, --version  show the version\n"
          "\n"
          "Run 'truecost COMMAND --help' for the options of one command.\n",
          out);
}

static const tc_cmd *find(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown(const char *name)
{
    const char *names[N_COMMANDS + 1];
    for (int i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    names[N_COMMANDS] = "help";
    const char *guess = tc_cli_suggest(name, names, N_COMMANDS + 1);
    if (guess)
        tc_cli_error("unknown command '%s'; did you mean '%s'?", name, guess);
    else
        tc_cli_error("unknown command '%s'", name);
    fputs("Run 'truecost --help' for the list of commands.\n", stderr);
    return TC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return TC_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        print_help(stdout);
        return TC_EXIT_OK;
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        print_version();
        return TC_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            print_help(stdout);
            return TC_EXIT_OK;
        }
        const tc_cmd *cmd = find(argv[2]);
        if (!cmd)
            return unknown(argv[2]);
        return tc_cli_help(cmd->name, stdout);
    }
    if (name[0] == '-') {
        tc_cli_error("unknown option '%s'", name);
        fputs("Run 'truecost --help' for the usage.\n", stderr);
        return TC_EXIT_USAGE;
    }
    const tc_cmd *cmd = find(name);
    if (!cmd)
        return unknown(name);
    /* A file size limit (ulimit -f) makes a write fail with EFBIG, said and
     * cleaned up, rather than killing truecost half way through a file. */
    signal(SIGXFSZ, SIG_IGN);
    tc_cli_set_command_line(argc, argv); /* before getopt reorders argv */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int code = cmd->run(argc - 1, argv + 1);
    curl_global_cleanup();
    return code;
}
