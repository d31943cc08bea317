/* A sharded group (`run --shard I/N`: N processes, often on N hosts, that
 * split one workload and start together) read as the one run it is: the
 * shards' requests merged on the wall clock, and every figure computed
 * from the merged records, so percentiles come from the merged
 * distributions, never averaged. */
#ifndef TC_SHARDS_H
#define TC_SHARDS_H

#include <stdint.h>

#include "analysis/figures.h"
#include "views/view_run.h"
#include "store/store.h"

/* 1 when set is a group whose runs are all shards (group_kind "shard"). */
int tc_view_is_sharded(const tc_runset *set);

/* Merges the records of set's runs into one run: each shard's monotonic
 * times are put on the wall clock by its own offset (send_wall - send,
 * taken from its first request), so hosts with unrelated monotonic
 * clocks line up as far as their wall clocks agree (NTP: well under a
 * millisecond); requests are renumbered in send order. The merged run is
 * the first shard's with the group's name as label, the sum of the
 * shards' requests, concurrency, rate and cap, and the worst status. Its
 * figures, records (to TC_FIGURES_CHUNKS), the first shard's
 * fingerprint and the bound go into *out (free with tc_view_run_free).
 * Its energy is the server box's, as tc_view_shards_energy reads it; a
 * warning says when shards also sampled their own hosts' devices, which
 * are left out (`show ID` has each shard's). */
TC_MUST_CHECK tc_err tc_view_shards(tc_store *st, const tc_runset *set, tc_run_view *out, char *err,
                                    size_t errlen);

/* A shard without a request: its clock cannot be put on the group's. */
#define TC_SHARD_NO_CLOCK INT64_MIN

/* The energy of a sharded group into f->e, f's metrics being the merged
 * ones: the remote devices (`run --telemetry URL`, the server box's; the
 * same exporter scraped by several shards is one device) each from the
 * shard whose samples cover the merged window best, moved onto the merged
 * clock by shift[i] (shard i's; TC_SHARD_NO_CLOCK: skipped). Local
 * devices are each shard's own host's and are left out: *n_local counts
 * the shards that had some. TC_OK (no remote device: f->e stays empty),
 * or an error with err filled. */
TC_MUST_CHECK tc_err tc_view_shards_energy(tc_store *st, const tc_runset *set, const int64_t *shift,
                                      tc_figures *f, int *n_local, char *err, size_t errlen);

#endif
