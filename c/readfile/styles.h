/*
 * styles.h -- the readfile variants, one style a file (sync.c, callback.c, ...).
 * Each function runs one pass of run->n reads (see ab_variant_fn in harness.h);
 * main.c lists them in the registry the driver looks names up in.
 */
#ifndef AB_READFILE_STYLES_H
#define AB_READFILE_STYLES_H

#include "harness.h"
#include "readfile.h"

/* sync.c: blocking system calls on the loop thread, no loop at all. */
int ab_readfile_sync(ab_run_t *run);

/* callback.c: completion callbacks; the mode only sets how many are in flight. */
int ab_readfile_callback(ab_run_t *run);
int ab_readfile_callback_nowait(ab_run_t *run);

/* promise.c: c/lib/promise.h; sequential and bounded are chains of .then. */
int ab_readfile_promise_chain(ab_run_t *run);
int ab_readfile_promise_all(ab_run_t *run);
int ab_readfile_promise_counter(ab_run_t *run);

#endif /* AB_READFILE_STYLES_H */
