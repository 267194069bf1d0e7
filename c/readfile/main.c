/*
 * main.c -- the readfile driver: read a small file N times in one style and
 * mode, verify every read, print one JSON line (seed 000's workload).
 *
 * Adding a variant: its style file, a declaration in styles.h, a line here,
 * and an entry in runner/catalog.json.
 */
#include "styles.h"

static const ab_variant_t variants[] = {
  /* name                  style       mode          function */
  {"sync-sequential",      "sync",     "sequential", ab_readfile_sync, NULL, 0},
  {"callback-sequential",  "callback", "sequential", ab_readfile_callback, NULL, 0},
  {"callback-parallel",    "callback", "parallel",   ab_readfile_callback, NULL, 0},
  {"callback-bounded",     "callback", "bounded",    ab_readfile_callback, NULL, 0},
  {"promise-sequential",   "promise",  "sequential", ab_readfile_promise_chain, NULL, 0},
  {"promise-parallel",     "promise",  "parallel",   ab_readfile_promise_all, NULL, 0},
  {"promise-counter-parallel", "promise", "parallel", ab_readfile_promise_counter, NULL, 0},
  {"promise-bounded",      "promise",  "bounded",    ab_readfile_promise_chain, NULL, 0},
  {"await-sequential",     "await",    "sequential", ab_readfile_await_loop, AB_READFILE_CORO_RUNTIME, 0},
  {"await-parallel",       "await",    "parallel",   ab_readfile_await_all, AB_READFILE_CORO_RUNTIME, 0},
  {"await-tasks-parallel", "await",   "parallel",   ab_readfile_await_tasks, AB_READFILE_CORO_RUNTIME, 0},
  {"await-bounded",        "await",    "bounded",    ab_readfile_await_loop, AB_READFILE_CORO_RUNTIME, 0},
  {"stackless-sequential", "stackless", "sequential", ab_readfile_stackless_loop, NULL, 0},
  {"stackless-parallel",   "stackless", "parallel",   ab_readfile_stackless_all, NULL, 0},
  {"stackless-tasks-parallel", "stackless", "parallel", ab_readfile_stackless_tasks, NULL, 0},
  {"stackless-bounded",    "stackless", "bounded",    ab_readfile_stackless_loop, NULL, 0},
  /* Test only: stops the clock before its reads complete (seed 000's first
   * mistake), so the runner must report it invalid. */
  {"callback-nowait-parallel", "callback", "parallel", ab_readfile_callback_nowait, NULL, 1},
  {NULL, NULL, NULL, NULL, NULL, 0}
};

int main(int argc, char **argv) {
  return ab_main(argc, argv, "readfile", variants);
}
