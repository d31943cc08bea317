/* What a training run (`truecost train`) keeps besides the run itself:
 * its plan and end, one record per optimizer step, and the distinct
 * warnings and errors its output showed. trainer/ reads them from the
 * trainer's output, measure/ stamps and stores them, store/ keeps them,
 * analysis/ turns them into figures. Times are CLOCK_MONOTONIC ns read
 * when the line carrying the step was read. */
#ifndef TC_RECORD_TRAIN_H
#define TC_RECORD_TRAIN_H

#include <stdint.h>

/* Where the steps are read from. */
typedef enum tc_train_format {
    TC_TRAIN_AUTO = 0,  /* detected from the first line that matches one below */
    TC_TRAIN_HF,        /* Hugging Face Trainer: {'loss': ..., 'epoch': ...} dicts */
    TC_TRAIN_TORCHTUNE, /* Step N | loss:... lr:... tokens_per_second_per_gpu:... */
    TC_TRAIN_LIGHTNING, /* ThroughputMonitor: train/samples_per_sec=... */
    TC_TRAIN_JSONL,     /* {"step": N, "loss": ..., "samples": ..., "tokens": ...} */
    TC_TRAIN_REGEX,     /* --step-regex with named groups */
    TC_TRAIN_FORMAT_COUNT
} tc_train_format;

/* "auto", "hf", "torchtune", "lightning", "jsonl", "regex"; parse returns
 * 0 or -1. */
const char *tc_train_format_name(tc_train_format f);
int tc_train_format_parse(const char *name, tc_train_format *out);

/* One optimizer step. A figure the log did not give is NaN (doubles) or
 * -1 (peak_memory_bytes). */
typedef struct tc_train_step {
    int64_t step;    /* the trainer's own step number (1, 2, ...; or counted) */
    int64_t t_ns;    /* when its line was read (CLOCK_MONOTONIC) */
    int64_t wall_ns; /* the same moment, wall clock, for people */
    double loss, lr;
    double samples;       /* samples in this step */
    double tokens;        /* tokens in this step */
    double samples_per_s; /* as the trainer reported it */
    double tokens_per_s;
    int64_t peak_memory_bytes; /* the framework's own peak (max_memory_allocated) */
} tc_train_step;

/* A step with every figure unknown. */
void tc_train_step_init(tc_train_step *s);

/* What a warning or error line is. */
typedef enum tc_train_class {
    TC_TRAIN_PY_WARNING = 0, /* a Python warning: category in the record */
    TC_TRAIN_RUNTIME_ERROR,  /* RuntimeError (not one of those below) */
    TC_TRAIN_OOM,            /* CUDA/HIP out of memory, hipErrorOutOfMemory */
    TC_TRAIN_GPU_ERROR,      /* CUDA error, HIP error, hipError* */
    TC_TRAIN_NO_BINARY,      /* hipErrorNoBinaryForGpu: no kernel for this GPU */
    TC_TRAIN_COLLECTIVE,     /* NCCL/RCCL errors and timeouts */
    TC_TRAIN_HSA,            /* HSA_STATUS_ERROR* */
    TC_TRAIN_SEGFAULT,       /* segmentation fault */
    TC_TRAIN_TRACEBACK,      /* Traceback (most recent call last) */
    TC_TRAIN_ERROR,          /* another Python exception line (FooError: ...) */
    TC_TRAIN_CLASS_COUNT
} tc_train_class;

/* "python_warning", "runtime_error", "out_of_memory", "gpu_error",
 * "no_binary_for_gpu", "collective", "hsa_error", "segfault", "traceback",
 * "error"; parse returns 0 or -1. */
const char *tc_train_class_name(tc_train_class c);
int tc_train_class_parse(const char *name, tc_train_class *out);
/* 1 for the classes that are errors, 0 for warnings. */
int tc_train_class_is_error(tc_train_class c);

/* One distinct message: its class, category (a Python warning's, e.g.
 * "UserWarning"; else ""), text, how often it was seen and the step
 * completed before it first was (0: before any). */
typedef struct tc_train_warning {
    tc_train_class cls;
    char category[64];
    char message[256];
    int64_t count;
    int64_t first_step;
} tc_train_warning;

/* How the trainer ended. */
typedef enum tc_train_end {
    TC_TRAIN_RUNNING = 0,
    TC_TRAIN_EXITED,      /* exited by itself (exit_code says how) */
    TC_TRAIN_SIGNALED,    /* killed by a signal truecost did not send */
    TC_TRAIN_INTERRUPTED, /* stopped by Ctrl-C/SIGTERM passed on by truecost */
    TC_TRAIN_KILLED,      /* ignored the stop: SIGKILL after the grace period */
    TC_TRAIN_NOT_STARTED, /* the command could not be run */
    TC_TRAIN_END_COUNT
} tc_train_end;

/* "running", "exited", "signaled", "interrupted", "killed", "not_started". */
const char *tc_train_end_name(tc_train_end e);
int tc_train_end_parse(const char *name, tc_train_end *out);

/* The run's plan (what was asked) and where it stands (updated as it goes). */
typedef struct tc_train_info {
    int64_t run_id;
    tc_train_format format;                   /* as asked (AUTO) until detected */
    char command[1024];                       /* the trainer's command line */
    char metrics_path[512];                   /* --metrics FILE, "" none */
    double samples_per_step, tokens_per_step; /* given; 0 = from the log */
    int64_t warmup_steps;                     /* given; -1 = default */
    double params;                            /* total parameters; 0 unknown */
    double trainable_params;                  /* LoRA's trainable share; 0 = all */
    char gpu[64];                             /* the card for MFU; "" unknown */
    int64_t start_ns, end_ns;                 /* monotonic: child started, ended */
    tc_train_end end;
    int exit_code; /* with EXITED; -1 otherwise */
    int signal;    /* with SIGNALED/INTERRUPTED/KILLED: the signal that ended it */
    int64_t steps; /* step records read */
    int64_t checkpoints;
    int64_t lines, long_lines, binary_lines; /* read; cut at the cap; not text */
    /* Hugging Face's final summary, NaN when not printed. */
    double train_runtime_s, train_samples_per_s, train_steps_per_s, train_loss, total_flos;
    char note[256]; /* "" or what went wrong reading (metrics rewritten, ...) */
} tc_train_info;

/* A plan with nothing known yet (NaN summary, exit_code -1, warmup -1). */
void tc_train_info_init(tc_train_info *t);

#endif
