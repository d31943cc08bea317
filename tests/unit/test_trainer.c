/* Unit tests of trainer/: each format read from real-looking lines,
 * auto detection, the named-group regex, checkpoints, and the warning and
 * error classifier with its tally. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "test_assert.h"
#include "trainer/trainer.h"

static tc_trainer *reader(tc_train_format f, const char *re)
{
    tc_trainer_config cfg = {.format = f, .step_regex = re};
    tc_trainer *t = NULL;
    char err[512];
    assert_int_equal(tc_trainer_new(&cfg, &t, err, sizeof err), TC_OK);
    return t;
}

static int line(tc_trainer *t, const char *text, tc_trainer_line *out, tc_train_info *info)
{
    return tc_trainer_read_line(t, text, strlen(text), out, info);
}

static void hf_dicts_and_summary(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_HF, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_true(line(t,
                     "{'loss': 2.1534, 'grad_norm': 1.873, 'learning_rate': 4.9e-05, 'epoch': "
                     "0.01, 'num_input_tokens_seen': 4096}",
                     &l, &info));
    assert_true(l.is_step);
    assert_int_equal(l.step.step, 1);
    assert_near(l.step.loss, 2.1534, 1e-12);
    assert_near(l.step.lr, 4.9e-05, 1e-15);
    assert_true(isnan(l.step.tokens)); /* the first count has nothing before it */
    /* tqdm's bar before the dict, on the same line */
    assert_true(line(t,
                     " 10%|#         | 2/20 [00:03<00:27]{'loss': 2.01, 'learning_rate': 4.8e-05, "
                     "'epoch': 0.02, 'num_input_tokens_seen': 8192}",
                     &l, &info));
    assert_int_equal(l.step.step, 2);
    assert_near(l.step.tokens, 4096, 0);
    /* evaluation dicts are no steps */
    assert_false(line(t, "{'eval_loss': 1.9, 'eval_runtime': 3.2, 'epoch': 1.0}", &l, &info));
    assert_true(line(t,
                     "{'train_runtime': 123.45, 'train_samples_per_second': 12.96, "
                     "'train_steps_per_second': 0.81, 'train_loss': 1.83, 'total_flos': 1.2e15, "
                     "'epoch': 1.0}",
                     &l, &info));
    assert_true(l.is_final);
    assert_false(l.is_step);
    assert_near(info.train_runtime_s, 123.45, 1e-9);
    assert_near(info.train_samples_per_s, 12.96, 1e-9);
    assert_near(info.train_steps_per_s, 0.81, 1e-9);
    assert_near(info.train_loss, 1.83, 1e-9);
    assert_near(info.total_flos, 1.2e15, 1);
    tc_trainer_free(t);
}

static void torchtune_lines(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_TORCHTUNE, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_true(line(t,
                     "Step 12 | loss:1.2345678 lr:2e-05 tokens_per_second_per_gpu:1834.52 "
                     "peak_memory_alloc:21.5",
                     &l, &info));
    assert_true(l.is_step);
    assert_int_equal(l.step.step, 12);
    assert_near(l.step.loss, 1.2345678, 1e-12);
    assert_near(l.step.lr, 2e-05, 1e-15);
    assert_near(l.step.tokens_per_s, 1834.52, 1e-9);
    assert_int_equal(l.step.peak_memory_bytes, (int64_t)(21.5 * 1073741824.0));
    assert_false(line(t, "Step twelve | loss:1", &l, &info));
    assert_false(line(t, "INFO:torchtune.utils._logging:Model is initialized", &l, &info));
    tc_trainer_free(t);
}

static void lightning_keys(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_LIGHTNING, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_true(line(t,
                     "{'train/batches': 40.0, 'train/samples': 320.0, 'train/batches_per_sec': "
                     "3.5, 'train/samples_per_sec': 28.0, 'train/items_per_sec': 14336.0, "
                     "'train/device/samples_per_sec': 7.0, 'train_loss': 0.93}",
                     &l, &info));
    assert_true(l.is_step);
    assert_int_equal(l.step.step, 40);
    assert_near(l.step.samples_per_s, 28.0, 0); /* the global figure, not the device's */
    assert_near(l.step.tokens_per_s, 14336.0, 0);
    assert_near(l.step.loss, 0.93, 1e-12);
    assert_true(line(t, "train|samples_per_sec=30.5 train|batches_per_sec=3.8", &l, &info));
    assert_int_equal(l.step.step, 41); /* no batch count: counted on */
    tc_trainer_free(t);
}

static void lightning_metrics_csv(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_AUTO, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_false(line(t,
                      "epoch,step,train/batches_per_sec,train/samples_per_sec,train/items_per_sec,"
                      "train/device/samples_per_sec,train_loss,val_loss",
                      &l, &info));
    assert_true(line(t, "0,9,3.5,28.0,14336.0,7.0,0.93,", &l, &info));
    assert_int_equal(tc_trainer_format(t), TC_TRAIN_LIGHTNING);
    assert_int_equal(l.step.step, 9);
    assert_near(l.step.samples_per_s, 28.0, 0);
    assert_near(l.step.tokens_per_s, 14336.0, 0);
    assert_near(l.step.loss, 0.93, 1e-12);
    /* a validation row: no throughput, no step */
    assert_false(line(t, "0,9,,,,,,1.02", &l, &info) && l.is_step);
    assert_true(line(t, "0,19,3.6,28.8,14745.6,7.2,0.91,", &l, &info));
    assert_int_equal(l.step.step, 19);
    /* a row of another shape is not read against this header */
    assert_false(line(t, "0,x,3.6,28.8", &l, &info) && l.is_step);
    tc_trainer_free(t);
}

static void jsonl_objects(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_JSONL, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_true(
        line(t,
             "{\"step\": 7, \"loss\": 0.5, \"samples\": 8, \"tokens\": 4096, \"lr\": 0.001, "
             "\"peak_memory_bytes\": 123456789}",
             &l, &info));
    assert_int_equal(l.step.step, 7);
    assert_near(l.step.samples, 8, 0);
    assert_near(l.step.tokens, 4096, 0);
    assert_int_equal(l.step.peak_memory_bytes, 123456789);
    assert_false(line(t, "{\"loss\": 0.5}", &l, &info)); /* no step */
    assert_false(line(t, "{\"step\": 8, \"loss\": ", &l, &info));
    assert_false(line(t, "{\"step\": \"eight\"}", &l, &info));
    tc_trainer_free(t);
}

static void regex_named_groups(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_REGEX, "it (?<step>[0-9]+) .*loss=(?<loss>[0-9.]+) "
                                           "\\((?<samples>[0-9]+) samples\\)");
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_true(line(t, "it 31 [train] loss=0.4125 (16 samples)", &l, &info));
    assert_int_equal(l.step.step, 31);
    assert_near(l.step.loss, 0.4125, 1e-12);
    assert_near(l.step.samples, 16, 0);
    assert_false(line(t, "it x loss=1", &l, &info));
    tc_trainer_free(t);

    char err[512];
    tc_trainer *bad = NULL;
    tc_trainer_config cfg = {.format = TC_TRAIN_REGEX, .step_regex = "it ([0-9]+) loss=([0-9.]+)"};
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_ERR_INVALID);
    assert_null(bad);
    assert_says(err, "--step-regex", "no named group", "step, loss", NULL);
    cfg.step_regex = "(?<speed>[0-9]+)";
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_ERR_INVALID);
    assert_says(err, "no group 'speed'", NULL);
    cfg.step_regex = "(?<step>[0-9+)";
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_ERR_INVALID);
    cfg.step_regex = NULL;
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_ERR_INVALID);
    assert_says(err, "--step-regex", NULL);
    /* what would make regcomp take exponential memory is refused */
    cfg.step_regex = "it (?<step>[0-9]++) x";
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_ERR_INVALID);
    assert_says(err, "follows another quantifier", NULL);
    cfg.step_regex = "(?<step>[0-9]{1,5000})";
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_ERR_INVALID);
    assert_says(err, "a count {n,m} over 100", NULL);
    cfg.step_regex = "(?<step>[0-9]{1,3}) \\+\\+ [+*]+";
    assert_int_equal(tc_trainer_new(&cfg, &bad, err, sizeof err), TC_OK);
    tc_trainer_free(bad);
}

static void auto_detects_then_keeps(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_AUTO, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_int_equal(tc_trainer_format(t), TC_TRAIN_AUTO);
    assert_false(line(t, "Loading checkpoint shards: 100%", &l, &info));
    assert_true(line(t, "Step 1 | loss:2.0 lr:1e-05", &l, &info));
    assert_int_equal(tc_trainer_format(t), TC_TRAIN_TORCHTUNE);
    /* once detected, another format's line is not a step */
    line(t, "{\"step\": 2, \"loss\": 1.0}", &l, &info);
    assert_false(l.is_step);
    tc_trainer_free(t);
}

static void checkpoints(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_HF, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    assert_true(line(t, "Saving model checkpoint to out/checkpoint-500", &l, &info));
    assert_true(l.checkpoint);
    assert_false(line(t, "Loading checkpoint shards", &l, &info));
    tc_trainer_free(t);
}

static void classify_one(const char *text, tc_train_class want, const char *category,
                         const char *message)
{
    tc_train_class c;
    char cat[64], msg[256];
    if (!tc_trainer_classify(text, &c, cat, sizeof cat, msg, sizeof msg))
        fail_msg("not classified: %s", text);
    if (c != want)
        fail_msg("%s: class %s, expected %s", text, tc_train_class_name(c),
                 tc_train_class_name(want));
    assert_string_equal(cat, category);
    assert_string_equal(msg, message);
}

static void classifier(void **state)
{
    (void)state;
    classify_one("/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:560: "
                 "UserWarning: This DataLoader will create 8 worker processes",
                 TC_TRAIN_PY_WARNING, "UserWarning",
                 "UserWarning: This DataLoader will create 8 worker processes");
    classify_one("  warnings.py:12: FutureWarning: `resume_download` is deprecated",
                 TC_TRAIN_PY_WARNING, "FutureWarning",
                 "FutureWarning: `resume_download` is deprecated");
    classify_one("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                 TC_TRAIN_OOM, "",
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB");
    classify_one("RuntimeError: HIP out of memory. Tried to allocate 1.00 GiB", TC_TRAIN_OOM, "",
                 "RuntimeError: HIP out of memory. Tried to allocate 1.00 GiB");
    classify_one("hip error: hipErrorOutOfMemory", TC_TRAIN_OOM, "", "hipErrorOutOfMemory");
    classify_one("RuntimeError: CUDA error: device-side assert triggered", TC_TRAIN_GPU_ERROR, "",
                 "RuntimeError: CUDA error: device-side assert triggered");
    classify_one("RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object",
                 TC_TRAIN_NO_BINARY, "",
                 "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object");
    classify_one("[rank1]:[E ProcessGroupNCCL.cpp:563] Watchdog caught collective operation "
                 "timeout: WorkNCCL(SeqNum=1)",
                 TC_TRAIN_COLLECTIVE, "",
                 "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)");
    classify_one("node1:123:456 [0] NCCL WARN NET/Socket : peer closed", TC_TRAIN_COLLECTIVE, "",
                 "NCCL WARN NET/Socket : peer closed");
    classify_one(":0:rocdevice.cpp:2875: HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", TC_TRAIN_HSA,
                 "", "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION");
    classify_one("Fatal Python error: Segmentation fault", TC_TRAIN_SEGFAULT, "",
                 "Segmentation fault");
    classify_one("Traceback (most recent call last):", TC_TRAIN_TRACEBACK, "",
                 "Traceback (most recent call last):");
    classify_one("RuntimeError: expected scalar type Half", TC_TRAIN_RUNTIME_ERROR, "",
                 "RuntimeError: expected scalar type Half");
    classify_one("ValueError: too many values to unpack", TC_TRAIN_ERROR, "",
                 "ValueError: too many values to unpack");
    tc_train_class c;
    char cat[64], msg[256];
    assert_false(tc_trainer_classify("  warnings.warn(", &c, cat, sizeof cat, msg, sizeof msg));
    assert_false(
        tc_trainer_classify("epoch 1: no Warning: here", &c, cat, sizeof cat, msg, sizeof msg));
    assert_false(
        tc_trainer_classify("{'loss': 1.0, 'epoch': 0.1}", &c, cat, sizeof cat, msg, sizeof msg));
}

static void tally_counts_distinct(void **state)
{
    (void)state;
    tc_trainer_tally t = {0};
    assert_int_equal(
        tc_trainer_tally_add(&t, TC_TRAIN_PY_WARNING, "UserWarning", "UserWarning: a", 3), 0);
    assert_int_equal(
        tc_trainer_tally_add(&t, TC_TRAIN_PY_WARNING, "UserWarning", "UserWarning: a", 9), 0);
    assert_int_equal(tc_trainer_tally_add(&t, TC_TRAIN_OOM, "", "CUDA out of memory", 10), 0);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.w[0].count, 2);
    assert_int_equal(t.w[0].first_step, 3);
    assert_int_equal(t.w[1].count, 1);
    assert_int_equal(t.w[1].first_step, 10);
    tc_trainer_tally_free(&t);
    tc_trainer_tally_free(NULL);
}

static void binary_and_nul(void **state)
{
    (void)state;
    tc_trainer *t = reader(TC_TRAIN_AUTO, NULL);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_line l;
    const char bin[] = "\x01\xff\xfe{'loss\x00': 1.0}";
    tc_trainer_read_line(t, bin, sizeof bin - 1, &l, &info);
    assert_false(l.is_step);
    tc_trainer_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hf_dicts_and_summary),
        cmocka_unit_test(torchtune_lines),
        cmocka_unit_test(lightning_keys),
        cmocka_unit_test(lightning_metrics_csv),
        cmocka_unit_test(jsonl_objects),
        cmocka_unit_test(regex_named_groups),
        cmocka_unit_test(auto_detects_then_keeps),
        cmocka_unit_test(checkpoints),
        cmocka_unit_test(classifier),
        cmocka_unit_test(tally_counts_distinct),
        cmocka_unit_test(binary_and_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
