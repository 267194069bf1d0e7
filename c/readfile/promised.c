/*
 * promised.c -- reads as promises, shared by the styles that await or chain
 * them (promise.c, await.c, stackless.c).
 *
 * A pass keeps its per-read records in a set (ab_reads_t), allocated before
 * the clock starts.  ab_reads_start also attaches the promise core's microtask
 * queue to the loop; ab_reads_finish runs loop and queue dry, detaches, reports
 * promises or coroutines that were never freed, and frees the set.
 *
 * A read is a promise (ab_readp_start): the completion callback fulfils it
 * with the read's record, or rejects it with the libuv error and the record as
 * the reason's payload (so a rejection still names its read after passing
 * through Promise.all), then drains the microtask queue, as Node drains
 * microtasks after every macrotask callback.
 */
#include "styles.h"

#include <stdlib.h>

static void reads_free(ab_reads_t *set) {
  for (long k = 0; k < set->n; k++)
    ab_read_cleanup(&ab_reads_at(set, k)->req);
  free(set->recs);
  free(set->ps);
  free(set);
}

ab_reads_t *ab_reads_start(ab_run_t *run, long n, size_t size) {
  ab_reads_t *set = calloc(1, sizeof(*set));
  if (set != NULL) {
    set->recs = calloc((size_t)n, size);
    set->ps = calloc((size_t)n, sizeof(*set->ps));
  }
  if (set == NULL || set->recs == NULL || set->ps == NULL) {
    if (set != NULL) {
      free(set->recs);
      free(set->ps);
      free(set);
    }
    ab_run_oom(run, 0, "the read records");
    return NULL;
  }
  set->run = run;
  set->n = n;
  set->size = size;
  for (long k = 0; k < n; k++)
    ab_reads_at(set, k)->set = set;
  int rc = ab_promise_loop_attach(run->loop);
  if (rc != 0) {
    ab_run_fail(run, 0, "could not attach the microtask queue: %s", uv_strerror(rc));
    reads_free(set);
    return NULL;
  }
  return set;
}

int ab_reads_finish(ab_reads_t *set) {
  ab_run_t *run = set->run;
  ab_promise_loop_run(run->loop);
  ab_promise_loop_detach();
  ab_promise_loop_run(run->loop); /* lets the two handles close */
  reads_free(set);
  if (!ab_run_failed(run) && ab_promise_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu promises were never freed", ab_promise_live());
  if (!ab_run_failed(run) && ab_coro_live() != 0)
    ab_run_fail(run, run->n - 1, "%zu coroutines never finished", ab_coro_live());
  ab_promise_pool_trim();
  return ab_run_failed(run) ? -1 : 0;
}

/* The completion: settle the read's promise, then drain the queue. */
static void readp_done(ab_read_t *req, ssize_t nread) {
  ab_readp_t *r = (ab_readp_t *)req; /* req is its first member */
  ab_promise_t *p = r->pending;
  r->pending = NULL;
  r->nread = nread;
  if (nread < 0)
    ab_promise_reject_reason(p, (ab_reason_t){(int)nread, req->failed_op, r, NULL});
  else
    ab_promise_resolve(p, r, NULL);
  ab_promise_release(p);
  ab_microtasks_drain();
}

ab_promise_t *ab_readp_start(ab_readp_t *r, long i) {
  ab_run_t *run = r->set->run;
  ab_promise_t *p = ab_promise_new();
  if (p == NULL) {
    ab_run_oom(run, i, "a promise");
    return NULL;
  }
  r->i = i;
  r->pending = ab_promise_retain(p);
  int rc = run->backend->start(run->loop, &r->req, run->opts->file, readp_done);
  if (rc != 0) {
    r->pending = NULL;
    ab_promise_release(p);
    ab_promise_release(p);
    ab_run_fail(run, i, "start failed: %s", uv_strerror(rc));
    return NULL;
  }
  return p;
}

int ab_readp_verify(const ab_readp_t *r) {
  return ab_run_check(r->set->run, r->i, r->req.buf, r->nread);
}

int ab_readp_check(ab_readp_t *r, const ab_promise_t *p, int code) {
  if (code != 0) {
    ab_reads_failed(r->set, p, code, r->i);
    return -1;
  }
  return ab_readp_verify(r);
}

void ab_reads_failed(ab_reads_t *set, const ab_promise_t *p, int code, long i) {
  ab_reason_t why = ab_promise_reason(p);
  if (why.code == UV_ENOMEM || code == AB_ENOMEM) {
    const ab_readp_t *r = why.ptr != NULL && why.type == NULL ? why.ptr : NULL;
    ab_run_oom(set->run, r != NULL ? r->i : i, r != NULL ? "a read buffer" : "an await");
  } else if (why.code != 0 && why.ptr != NULL && why.type == NULL) {
    const ab_readp_t *r = why.ptr;
    ab_run_fail(set->run, r->i, "%s failed: %s", why.message ? why.message : "read",
                ab_promise_strerror(why.code));
  } else {
    ab_run_fail(set->run, i, "await failed: %s", ab_promise_strerror(code));
  }
}

ab_promise_t *ab_reads_all(ab_reads_t *set) {
  long k;
  for (k = 0; k < set->n; k++)
    if ((set->ps[k] = ab_readp_start(ab_reads_at(set, k), k)) == NULL)
      break; /* recorded */
  ab_promise_t *all = k == set->n ? ab_promise_all(set->ps, (size_t)k) : NULL;
  if (all == NULL && k == set->n)
    ab_run_oom(set->run, k - 1, "a promise");
  for (long j = 0; j < k; j++)
    ab_promise_release(set->ps[j]);
  return all;
}

int ab_reads_verify(const ab_list_t *reads) {
  for (size_t k = 0; k < reads->n; k++)
    if (ab_readp_verify(reads->items[k].ptr) != 0)
      return -1;
  return 0;
}
