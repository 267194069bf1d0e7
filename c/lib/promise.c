/*
 * promise.c -- the promise core: pools, the resolution procedure, reactions,
 * combinators and unhandled-rejection tracking.  Its jobs run from the
 * microtask queue of microtask.c.
 *
 * Layout.  A promise is 48 bytes from a slab pool.  Its reactions form a
 * singly linked list, pushed at the head while it is pending and reversed when
 * it settles, so they are queued in registration order.  A reaction record
 * (32 bytes, its kind in the two bytes before it) is either inline in a
 * promise (the `rx` slot, which shares its space with the settled value) or
 * from a pooled free list (40 bytes with its kind):
 *   - then/catch/finally put theirs in the derived promise's slot (the derived
 *     promise is always fresh, so the slot is free): no allocation beyond it;
 *   - ab_promise_then_release has no derived promise until the promise it
 *     waits on settles: its record is in that promise's slot when free (the
 *     pool otherwise), and settling moves it into the derived promise, made
 *     then, where then()'s would have been;
 *   - raw reactions, await's wake-ups and combinator elements use the slot of
 *     the promise they wait on when it is free (the first such reaction), the
 *     pool otherwise;
 *   - an adoption uses the adopting promise's slot when free.
 * The slot is used only while its promise is pending.  A promise that
 * settles with its own reaction in its slot moves the record out first (into
 * the derived promise for then_release, into a pooled record otherwise; an
 * await's only wake-up is queued at once and needs no record), so the value
 * can take the slot's place.  A record inline in a promise other than the one
 * it waits on (then's, finally's, a thunk's) is in a promise nobody else may
 * settle until the record has run: such a promise is LOCKED, and resolving it
 * from outside returns AB_EALREADY, as it would in JavaScript, where only the
 * reaction holds its resolving functions.
 * The promise a record settles (then's, finally's, an adoption's) is the one
 * it is inline in; a pooled adoption names it.  A record carries its kind,
 * which names the job that runs it (jobs[]).
 * A queued job is a microtask (microtask.h): a function and one argument,
 * pushed inline onto microtask.c's ring.  For a reaction the argument is the
 * record, which then carries the promise that settled (in place of its list
 * link; the job holds a reference to that promise).  An await's wake-up is
 * no job of the core: settling queues the awaiter's own resumption at once
 * and frees the record (the awaiter keeps the promise alive).
 *
 * Ticks follow ECMAScript: see promise.h.  Comments name the specification's
 * steps where the code follows them.
 */
#include "promise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "counters.h"
#include "microtask_internal.h"

#ifdef AB__PROMISE_ASAN /* promise.h */
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HOT_INLINE inline __attribute__((always_inline))
#define COLD __attribute__((noinline, cold))
#define COLD_FREE __attribute__((noinline))
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define HOT_INLINE inline
#define COLD
#define COLD_FREE
#endif

/* ---- records ------------------------------------------------------------- */

enum {
  F_RESOLVED = AB__P_RESOLVED,
  F_HANDLED = AB__P_HANDLED,
  F_RX_BUSY = AB__P_RX_BUSY,
  F_LISTED = AB__P_LISTED,
  F_LOCKED = AB__P_LOCKED
};

typedef struct ab__reaction_s reaction_t;

/* A pooled record: its head, then the record (whose address is used). */
typedef struct pooled_rx_s {
  uint8_t pad[8 - sizeof(ab__rx_head_t)];
  ab__rx_head_t head;
  reaction_t r;
} pooled_rx_t;

_Static_assert(offsetof(ab_promise_t, rx) - offsetof(ab_promise_t, rx_head) ==
                   sizeof(ab__rx_head_t),
               "a promise's record head is just before its record");
_Static_assert(offsetof(pooled_rx_t, r) - offsetof(pooled_rx_t, head) == sizeof(ab__rx_head_t),
               "a pooled record's head is just before it");
_Static_assert(sizeof(void *) != 8 || sizeof(ab_promise_t) == 48, "a promise is 48 bytes on LP64");
_Static_assert(sizeof(void *) != 8 || sizeof(reaction_t) == 32, "a record is 32 bytes on LP64");
/* A combinator element in a promise's slot stays there when the promise
 * settles: its arg lies after the value's fields (settle). */
_Static_assert(offsetof(ab_promise_t, rx.arg) >= offsetof(ab_promise_t, type) + sizeof(void *),
               "a record's arg lies beyond the settled value");

#define KIND(r) (ab__rx_head(r)->kind)
#define SET_KIND(r, k) (ab__rx_head(r)->kind = (uint8_t)(k))

struct ab_resolver_s {
  uint32_t refs;
  uint8_t done;
  ab_promise_t *p;
  void *xptr;               /* the thenable, until its then was called */
  const ab_type_t *xtype;
  void *then;
};

typedef struct combo_s {
  uint32_t refs;
  uint8_t kind;             /* COMBO_* */
  size_t remaining;
  ab_promise_t *result;
  ab_list_t *list;
} combo_t;

enum { COMBO_ALL, COMBO_ALL_SETTLED, COMBO_RACE, COMBO_ANY };

#define owner_of(r) ((ab_promise_t *)((char *)(r) - offsetof(ab_promise_t, rx)))

/* Out of memory where nobody can be told: one line and exit 3, the suite's
 * environment error (DESIGN section 3), not an abort that looks like a bug. */
static COLD void die_oom(void) {
  fputs("ab_promise: out of memory\n", stderr);
  fflush(stderr);
  _exit(3);
}

/* ---- pools --------------------------------------------------------------- */

typedef union slab_u {
  union slab_u *next;
  max_align_t align;
} slab_t;

typedef ab__pool_t pool_t;  /* promise.h: slabs is a slab_t list */

#define SLAB_OBJECTS 128

ab__pool_t ab__promise_pool = {NULL, NULL, sizeof(ab_promise_t), 0};
#define promise_pool ab__promise_pool
static pool_t reaction_pool = {NULL, NULL, sizeof(pooled_rx_t), 0};
/* A combinator's state, and the result lists of up to LIST_POOLED inputs
 * (Promise.all of a few promises is the common shape: asyncfib's pairs). */
static pool_t combo_pool = {NULL, NULL, sizeof(combo_t), 0};
#define LIST_POOLED 4
static pool_t list_pool = {NULL, NULL, sizeof(ab_list_t) + LIST_POOLED * sizeof(ab_settled_t), 0};

static void pool_grow(pool_t *pool) {
  slab_t *s = malloc(sizeof(slab_t) + SLAB_OBJECTS * pool->size);
  if (s == NULL) return;
  AB_COUNT_ALLOC();
  s->next = pool->slabs;
  pool->slabs = s;
  char *base = (char *)(s + 1);
  for (size_t i = SLAB_OBJECTS; i-- > 0;) {
    void **obj = (void **)(base + i * pool->size);
    *obj = pool->free;
    pool->free = obj;
    POISON((char *)obj + sizeof(void *), pool->size - sizeof(void *));
  }
}

static inline void *pool_get(pool_t *pool) {
  if (UNLIKELY(pool->free == NULL)) {
    pool_grow(pool);
    if (pool->free == NULL) return NULL;
  }
  void **obj = pool->free;
  UNPOISON((char *)obj + sizeof(void *), pool->size - sizeof(void *));
  pool->free = *obj;
  pool->live++;
  ab_counters.pool_gets++;
  return obj;
}

static inline void pool_put(pool_t *pool, void *p) {
  void **obj = p;
  *obj = pool->free;
  pool->free = obj;
  pool->live--;
  POISON((char *)obj + sizeof(void *), pool->size - sizeof(void *));
}

static void pool_trim(pool_t *pool) {
  if (pool->live != 0) return;
  while (pool->slabs) {
    slab_t *s = pool->slabs;
    pool->slabs = s->next;
    UNPOISON(s + 1, SLAB_OBJECTS * pool->size);
    free(s);
  }
  pool->free = NULL;
}

/* ---- queueing jobs on the microtask queue ------------------------------- */

/* The core's jobs cannot report failure to anyone: running out of memory for
 * the queue aborts.  The growing is out of line so that the inlined fast
 * path keeps nothing alive across a call (no stack frame in its callers). */
static COLD void enqueue_grow(ab_microtask_fn fn, void *arg) {
  if (ab__queue_grow(&ab__microtasks) != 0) die_oom();
  ab__queue_put(&ab__microtasks, fn, arg);
}

static HOT_INLINE void enqueue(ab_microtask_fn fn, void *arg) {
  if (UNLIKELY(ab__queue_full(&ab__microtasks))) {
    enqueue_grow(fn, arg);
    return;
  }
  ab__queue_put(&ab__microtasks, fn, arg);
}

static void run_then_job(void *job);
static void run_then_later_job(void *job);
static void run_finally_job(void *job);
static void run_thunk_job(void *job);
static void run_adopt_job(void *job);
static void run_raw_job(void *job);
static void run_element_job(void *job);

/* The job of each record kind (AB__RX_*; a wake-up has none). */
static const ab_microtask_fn jobs[] = {
  [AB__RX_WAKE] = NULL,
  [AB__RX_THEN] = run_then_job,
  [AB__RX_THEN_LATER] = run_then_later_job,
  [AB__RX_FINALLY] = run_finally_job,
  [AB__RX_THUNK] = run_thunk_job,
  [AB__RX_ADOPT] = run_adopt_job,
  [AB__RX_RAW] = run_raw_job,
  [AB__RX_ELEMENT] = run_element_job,
};

/* ---- unhandled rejections ------------------------------------------------ */

static ab_promise_t **unhandled;
static size_t unhandled_n, unhandled_cap;
static ab_unhandled_fn unhandled_fn;
static void *unhandled_arg;
static size_t unhandled_reported;

static void process_unhandled(void);

/* Lists p for the report at the end of the drain, which the hook asks for. */
static void track_unhandled(ab_promise_t *p) {
  if (unhandled_n == unhandled_cap) {
    size_t cap = unhandled_cap ? unhandled_cap * 2 : 16;
    ab_promise_t **a = realloc(unhandled, cap * sizeof(*a));
    if (a == NULL) die_oom();
    unhandled = a;
    unhandled_cap = cap;
  }
  p->refs++;
  p->flags |= F_LISTED;
  unhandled[unhandled_n++] = p;
  ab__microtasks_idle = process_unhandled;
}

static void report_default(void *arg, ab_promise_t *p) {
  (void)arg;
  fprintf(stderr, "ab_promise: unhandled rejection: %s: %s\n",
          ab_promise_errname(p->code), p->message);
}

/* Reports what is still unhandled, once each; the list is emptied first so
 * a reporter may create and reject promises of its own (which sets the hook
 * again: the drain goes round once more). */
static COLD void process_unhandled(void) {
  size_t n = unhandled_n;
  ab_promise_t **list = unhandled;
  unhandled = NULL;
  unhandled_n = unhandled_cap = 0;
  for (size_t i = 0; i < n; i++) {
    ab_promise_t *p = list[i];
    p->flags &= (uint8_t)~F_LISTED;
    if (!(p->flags & F_HANDLED)) {
      unhandled_reported++;
      (unhandled_fn ? unhandled_fn : report_default)(unhandled_arg, p);
    }
    ab_promise_release(p);
  }
  free(list);
}

void ab_promise_on_unhandled(ab_unhandled_fn fn, void *arg) {
  unhandled_fn = fn;
  unhandled_arg = arg;
}

size_t ab_promise_unhandled_count(void) { return unhandled_reported; }

/* ---- values -------------------------------------------------------------- */

static inline void value_retain(void *ptr, const ab_type_t *type) {
  if (type && type->retain) type->retain(ptr);
}

static inline void value_release(void *ptr, const ab_type_t *type) {
  if (type && type->release) type->release(ptr);
}

static void promise_type_retain(void *ptr) { ab_promise_retain(ptr); }
static void promise_type_release(void *ptr) { ab_promise_release(ptr); }

const ab_type_t ab_promise_type = {"promise", promise_type_retain,
                                   promise_type_release, NULL, NULL};

static void list_retain(void *ptr) { ((ab_list_t *)ptr)->refs++; }

static void list_release(void *ptr) {
  ab_list_t *l = ptr;
  if (--l->refs != 0) return;
  for (size_t i = 0; i < l->n; i++) value_release(l->items[i].ptr, l->items[i].type);
  if (l->n <= LIST_POOLED)
    pool_put(&list_pool, l);
  else
    free(l);
}

const ab_type_t ab_list_type = {"list", list_retain, list_release, NULL, NULL};

static ab_list_t *list_new(size_t n) {
  ab_list_t *l = n <= LIST_POOLED ? pool_get(&list_pool)
                                  : malloc(sizeof(ab_list_t) + n * sizeof(ab_settled_t));
  if (l == NULL) return NULL;
  /* An item is released as its (ptr, type) when the list goes: an item no
   * input has filled yet holds nothing. */
  for (size_t i = 0; i < n; i++) {
    l->items[i].ptr = NULL;
    l->items[i].type = NULL;
  }
  l->refs = 1;
  l->n = n;
  return l;
}

/* ---- life cycle ---------------------------------------------------------- */

static inline ab_promise_t *promise_alloc(void) {
  ab_promise_t *p = pool_get(&promise_pool);
  if (UNLIKELY(p == NULL)) return NULL;
  return ab__promise_init(p, 1);
}

ab_promise_t *ab_promise_new(void) { return promise_alloc(); }

ab_promise_t *ab_promise_retain(ab_promise_t *p) {
  p->refs++;
  return p;
}

/* A record from the pool. */
static HOT_INLINE reaction_t *record_pooled(void) {
  pooled_rx_t *o = pool_get(&reaction_pool);
  if (o == NULL) return NULL;
  o->head.pooled = 1;
  return &o->r;
}

static COLD_FREE reaction_t *record_pooled_call(void) { return record_pooled(); }

/* A record for a reaction on owner: its slot when free (F_RX_BUSY is also
 * set for good once owner has settled: its slot holds the value).  (Where a
 * busy slot is the exception, the pool is called out of line: the caller
 * then needs no stack frame.) */
static inline reaction_t *record_in(ab_promise_t *owner) {
  if (UNLIKELY(owner->flags & F_RX_BUSY)) return record_pooled_call();
  owner->flags |= F_RX_BUSY;
  return &owner->rx;
}

/* record_in where a busy slot is common (a combinator's inputs are often
 * then()'s promises, whose slot holds their own reaction). */
static HOT_INLINE reaction_t *record_in_often_pooled(ab_promise_t *owner) {
  if (owner->flags & F_RX_BUSY) return record_pooled();
  owner->flags |= F_RX_BUSY;
  return &owner->rx;
}

static inline void record_free(reaction_t *r) {
  if (ab__rx_head(r)->pooled)
    pool_put(&reaction_pool, (char *)r - offsetof(pooled_rx_t, r));
  else
    owner_of(r)->flags &= (uint8_t)~F_RX_BUSY;
}

/* The promise an adoption record settles. */
static inline ab_promise_t *adopter_of(const reaction_t *r) {
  return ab__rx_head(r)->pooled ? r->f.target : owner_of(r);
}

static void combo_release(combo_t *c);

/* A reaction on p that will never run (p was freed while pending). */
static void drop_reaction(reaction_t *r) {
  switch (KIND(r)) {
  case AB__RX_THEN:
  case AB__RX_FINALLY:
  case AB__RX_THUNK: {
    ab_promise_t *t = owner_of(r);
    if (KIND(r) == AB__RX_THUNK) ab_promise_release(r->arg);
    t->flags &= (uint8_t)~(F_RX_BUSY | F_LOCKED);
    ab_promise_release(t);
    break;
  }
  case AB__RX_ADOPT: {
    ab_promise_t *t = adopter_of(r);
    record_free(r);
    ab_promise_release(t);
    break;
  }
  case AB__RX_ELEMENT: {
    combo_t *c = r->arg;
    record_free(r);
    combo_release(c);
    break;
  }
  default: /* then_release's (no derived promise yet), raw, wake-up */
    record_free(r);
  }
}

/* Frees p, whose last reference just went: the general case (a pending
 * promise's reactions are dropped, a typed value is released). */
void ab__promise_free(ab_promise_t *p) {
  if (p->state == AB_PENDING) {
    reaction_t *r = p->reactions;
    p->reactions = NULL;
    while (r) {
      reaction_t *next = r->next;
      drop_reaction(r);
      r = next;
    }
  } else {
    value_release(p->ptr, p->type);
  }
  pool_put(&promise_pool, p);
}

/* The core's own release: p is never NULL. */
static HOT_INLINE void unref(ab_promise_t *p) {
  if (--p->refs != 0) return;
  /* Settled with an untyped value, the common end: nothing to drop or
   * release, straight back to the free list without a call. */
  if (LIKELY(p->state != AB_PENDING && p->type == NULL))
    pool_put(&promise_pool, p);
  else
    ab__promise_free(p);
}

/* ---- settling ------------------------------------------------------------ */

/* Queues reaction r of p, which has settled: its job with the record, which
 * holds a reference to p; an await's wake-up is the awaiter's own job, and
 * its record is free at once. */
static HOT_INLINE void queue_reaction(ab_promise_t *p, reaction_t *r) {
  unsigned kind = KIND(r);
  if (LIKELY(kind != AB__RX_WAKE)) {
    r->settled = p;
    p->refs++;
    enqueue(jobs[kind], r);
  } else {
    ab_microtask_fn wake = r->f.wake;
    void *arg = r->arg;
    record_free(r);
    enqueue(wake, arg);
  }
}

/* Queues the reactions of a promise that had more than one (rare: kept out
 * of line so that settle() stays small where it is inlined). */
static COLD_FREE void queue_reactions(ab_promise_t *p, reaction_t *r) {
  reaction_t *rev = NULL;
  while (r) {  /* newest first: reverse into registration order */
    reaction_t *next = r->next;
    r->next = rev;
    rev = r;
    r = next;
  }
  for (r = rev; r; r = rev) {
    rev = r->next;
    queue_reaction(p, r);
  }
}

/* The record in p's slot, p's own reaction (then_release's, raw, an
 * element's or a wake-up), moved out of the way of the value p is settling
 * with: then_release's into the derived promise it will settle, made now
 * (as then()'s lives in its), the others into a pooled record.  Returns the
 * new home. */
static COLD_FREE reaction_t *slot_out_pooled(ab_promise_t *p) {
  reaction_t *to = record_pooled();
  if (UNLIKELY(to == NULL)) die_oom();
  *to = p->rx;
  SET_KIND(to, p->rx_head.kind);
  return to;
}

static HOT_INLINE reaction_t *slot_out(ab_promise_t *p) {
  if (LIKELY(p->rx_head.kind == AB__RX_THEN_LATER)) {
    ab_promise_t *d = pool_get(&promise_pool);
    if (UNLIKELY(d == NULL)) die_oom();
    d->reactions = NULL;
    d->refs = 1;  /* the reaction's, the only one */
    d->state = AB_PENDING;
    d->flags = F_RX_BUSY | F_LOCKED;
    d->rx_head.kind = AB__RX_THEN;
    d->rx_head.pooled = 0;
    d->rx = p->rx;
    return &d->rx;
  }
  return slot_out_pooled(p);
}

/* slot_out where p has more than one reaction: the list (newest first, from
 * r) links the new home in the slot's place.  Returns the list's head. */
static COLD_FREE reaction_t *slot_out_listed(ab_promise_t *p, reaction_t *r) {
  reaction_t *to = slot_out(p);
  if (r == &p->rx) return to;
  for (reaction_t *q = r; q; q = q->next)
    if (q->next == &p->rx) {
      q->next = to;
      break;
    }
  return r;
}

/* settle's second half: p takes its value (its slot from now on, F_RX_BUSY
 * for good) and its reactions r are queued. */
static HOT_INLINE void settle_value(ab_promise_t *p, reaction_t *r, ab_promise_state_t state,
                                    int code, const char *message, void *ptr,
                                    const ab_type_t *type) {
  p->state = (uint8_t)state;
  p->flags |= F_RX_BUSY;
  p->message = message;  /* in place of the list */
  p->code = code;
  p->ptr = ptr;
  p->type = type;
  if (state == AB_REJECTED && !(p->flags & F_HANDLED)) track_unhandled(p);
  if (r == NULL) return;
  if (LIKELY(r->next == NULL)) {  /* one reaction: the common case */
    queue_reaction(p, r);
    return;
  }
  queue_reactions(p, r);
}

/* settle for a p whose slot holds one of its own reactions, among others or
 * of a kind that must move: the record goes first. */
static COLD_FREE void settle_slot(ab_promise_t *p, ab_promise_state_t state, int code,
                                  const char *message, void *ptr, const ab_type_t *type) {
  reaction_t *r = p->reactions;
  if (r == &p->rx && r->next == NULL)
    r = slot_out(p);
  else
    r = slot_out_listed(p, r);
  settle_value(p, r, state, code, message, ptr, type);
}

/* Settles pending p.  Its slot is in use while pending only by a record that
 * is p's own reaction (then's, finally's and a thunk's promises free theirs
 * before they settle).  Alone, two kinds need not move: an await's wake-up
 * is queued at once, and a combinator's element stays, its arg in place
 * beyond the value and its index in the value's spare word (held_index);
 * its job finds p as the record's owner. */
static HOT_INLINE void settle(ab_promise_t *p, ab_promise_state_t state, int code,
                   const char *message, void *ptr, const ab_type_t *type) {
  if (p->flags & F_RX_BUSY) {
    reaction_t *r = p->reactions;
    if (LIKELY(r == &p->rx && r->next == NULL)) {
      if (p->rx_head.kind == AB__RX_WAKE) {
        ab_microtask_fn wake = r->f.wake;
        void *arg = r->arg;
        settle_value(p, NULL, state, code, message, ptr, type);
        enqueue(wake, arg);
        return;
      }
      if (p->rx_head.kind == AB__RX_ELEMENT) {
        uint32_t index = r->u.index;
        settle_value(p, NULL, state, code, message, ptr, type);
        p->held_index = index;
        p->refs++;  /* the job's */
        enqueue(run_element_job, r);
        return;
      }
    }
    settle_slot(p, state, code, message, ptr, type);
    return;
  }
  settle_value(p, p->reactions, state, code, message, ptr, type);
}

static HOT_INLINE void fulfil(ab_promise_t *p, void *ptr, const ab_type_t *type) {
  settle(p, AB_FULFILLED, 0, NULL, ptr, type);
}

static void reject(ab_promise_t *p, ab_reason_t why) {
  settle(p, AB_REJECTED, why.code,
         why.message ? why.message : ab_promise_strerror(why.code), why.ptr,
         why.type);
}

/* dst settles as src did (src is settled); values are copied with retain. */
static void settle_like(ab_promise_t *dst, const ab_promise_t *src) {
  value_retain(src->ptr, src->type);
  settle(dst, src->state, src->code, src->message, src->ptr, src->type);
}

static void job_adopt(void *arg);
static void job_call_then(void *arg);

/* The promise resolve function's steps (ECMAScript 27.2.1.3.2, A+ 2.3) for a
 * promise already marked resolved; takes over the value's reference. */
static void resolve_value(ab_promise_t *p, void *ptr, const ab_type_t *type) {
  if (type == &ab_promise_type) {
    ab_promise_t *x = ptr;
    if (UNLIKELY(x == p)) {
      ab_promise_release(x);
      reject(p, (ab_reason_t){AB_ETYPE, "Chaining cycle detected for promise",
                              NULL, NULL});
      return;
    }
    /* NewPromiseResolveThenableJob: one tick, then x.then(resolve, reject).
     * The job carries the record the adoption will register on x. */
    reaction_t *r = record_in(p);
    if (r == NULL) die_oom();
    SET_KIND(r, AB__RX_ADOPT);
    r->f.target = p;  /* read when pooled (adopter_of) */
    p->refs++;     /* the record's */
    r->arg = x;    /* the job's reference of x, the caller's until now */
    enqueue(job_adopt, r);
    return;
  }
  if (type && type->get_then) {
    void *then = NULL;
    ab_reason_t thrown = {AB_ETHROWN, NULL, NULL, NULL};
    int t = type->get_then(ptr, &then, &thrown);
    if (t < 0) {
      value_release(ptr, type);
      reject(p, thrown);
      return;
    }
    if (t > 0) {
      ab_resolver_t *r = malloc(sizeof(*r));
      if (r == NULL) die_oom();
      r->refs = 1;
      r->done = 0;
      r->p = p;
      p->refs++;
      r->xptr = ptr;
      r->xtype = type;
      r->then = then;
      enqueue(job_call_then, r);
      return;
    }
  }
  fulfil(p, ptr, type);
}

/* resolve_value for a typed value, out of line (a tail call from the caller). */
static COLD_FREE int resolve_typed(ab_promise_t *p, void *ptr, const ab_type_t *type) {
  resolve_value(p, ptr, type);
  return 0;
}

int ab_promise_resolve(ab_promise_t *p, void *ptr, const ab_type_t *type) {
  if (p->flags & (F_RESOLVED | F_LOCKED)) {
    value_release(ptr, type);
    return AB_EALREADY;
  }
  p->flags |= F_RESOLVED;
  if (type != NULL) return resolve_typed(p, ptr, type);
  fulfil(p, ptr, NULL);  /* an untyped value cannot be a thenable */
  return 0;
}

int ab_promise_resolve_promise(ab_promise_t *p, ab_promise_t *x) {
  x->refs++;
  return ab_promise_resolve(p, x, &ab_promise_type);
}

int ab_promise_reject_reason(ab_promise_t *p, ab_reason_t reason) {
  if (p->flags & (F_RESOLVED | F_LOCKED)) {
    value_release(reason.ptr, reason.type);
    return AB_EALREADY;
  }
  p->flags |= F_RESOLVED;
  reject(p, reason);
  return 0;
}

int ab_promise_reject(ab_promise_t *p, int code, const char *message) {
  return ab_promise_reject_reason(p, (ab_reason_t){code, message, NULL, NULL});
}

ab_promise_t *ab_promise_resolved(void *ptr, const ab_type_t *type) {
  if (type == &ab_promise_type) return ptr;  /* PromiseResolve: x itself */
  ab_promise_t *p = promise_alloc();
  if (p == NULL) {
    value_release(ptr, type);
    return NULL;
  }
  if (type == NULL) {  /* an untyped value is no thenable: fulfilled at once */
    p->flags = F_RESOLVED;
    fulfil(p, ptr, NULL);
    return p;
  }
  ab_promise_resolve(p, ptr, type);
  return p;
}

ab_promise_t *ab_promise_rejected(int code, const char *message) {
  ab_promise_t *p = promise_alloc();
  if (p != NULL) ab_promise_reject(p, code, message);
  return p;
}

/* ---- thenables ----------------------------------------------------------- */

int ab_resolver_resolve(ab_resolver_t *r, void *ptr, const ab_type_t *type) {
  if (r->done) {
    value_release(ptr, type);
    return AB_EALREADY;
  }
  r->done = 1;
  resolve_value(r->p, ptr, type);
  return 0;
}

int ab_resolver_reject(ab_resolver_t *r, ab_reason_t reason) {
  if (r->done) {
    value_release(reason.ptr, reason.type);
    return AB_EALREADY;
  }
  r->done = 1;
  reject(r->p, reason);
  return 0;
}

ab_resolver_t *ab_resolver_retain(ab_resolver_t *r) {
  r->refs++;
  return r;
}

void ab_resolver_release(ab_resolver_t *r) {
  if (--r->refs != 0) return;
  ab_promise_release(r->p);
  free(r);
}

/* NewPromiseResolveThenableJob for a foreign thenable. */
static void job_call_then(void *arg) {
  ab_resolver_t *r = arg;
  void *x = r->xptr;
  const ab_type_t *type = r->xtype;
  r->xptr = NULL;
  type->call_then(x, r->then, r);  /* takes the job's resolver reference */
  value_release(x, type);
}

static inline void add_reaction(ab_promise_t *p, reaction_t *r);

/* NewPromiseResolveThenableJob for an ab promise: the record's target
 * follows x (the record's arg; the job's reference of it is dropped). */
static void job_adopt(void *arg) {
  reaction_t *r = arg;
  ab_promise_t *x = r->arg;
  add_reaction(x, r);
  ab_promise_release(x);
}

/* ---- reactions ----------------------------------------------------------- */

static inline void add_reaction(ab_promise_t *p, reaction_t *r) {
  p->flags |= F_HANDLED;
  if (p->state == AB_PENDING) {
    r->next = p->reactions;
    p->reactions = r;
  } else {
    queue_reaction(p, r);
  }
}

ab_promise_t *ab_promise_then(ab_promise_t *p, ab_then_fn on_fulfilled,
                              ab_then_fn on_rejected, void *arg) {
  ab_promise_t *d = promise_alloc();
  if (UNLIKELY(d == NULL)) return NULL;
  d->refs = 2;  /* the caller's and the reaction's */
  d->flags = F_RX_BUSY | F_LOCKED;
  reaction_t *r = &d->rx;
  SET_KIND(r, AB__RX_THEN);
  r->f.then = on_fulfilled;
  r->u.on_rejected = on_rejected;
  r->arg = arg;
  add_reaction(p, r);
  return d;
}

int ab_promise_then_release(ab_promise_t *p, ab_then_fn on_fulfilled,
                            ab_then_fn on_rejected, void *arg) {
  /* The record in p's slot (the pool's when busy or p has settled); if p
   * settles with it there, it moves into the derived promise (slot_out). */
  reaction_t *r = record_in(p);
  if (UNLIKELY(r == NULL)) return AB_ENOMEM;
  SET_KIND(r, AB__RX_THEN_LATER);
  r->f.then = on_fulfilled;
  r->u.on_rejected = on_rejected;
  r->arg = arg;
  add_reaction(p, r);
  return 0;
}

ab_promise_t *ab_promise_catch(ab_promise_t *p, ab_then_fn on_rejected, void *arg) {
  return ab_promise_then(p, NULL, on_rejected, arg);
}

ab_promise_t *ab_promise_finally(ab_promise_t *p, ab_finally_fn on_finally, void *arg) {
  if (on_finally == NULL) return ab_promise_then(p, NULL, NULL, NULL);
  ab_promise_t *d = promise_alloc();
  if (d == NULL) return NULL;
  d->refs = 2;
  d->flags = F_RX_BUSY | F_LOCKED;
  reaction_t *r = &d->rx;
  SET_KIND(r, AB__RX_FINALLY);
  r->f.fin = on_finally;
  r->arg = arg;
  add_reaction(p, r);
  return d;
}

/* ab_promise_settled_enqueue when the queue is full (out of line, so that
 * the common case needs no stack frame). */
static COLD int settled_enqueue_grow(ab_promise_t *p, ab_microtask_fn fn, void *arg) {
  if (ab__queue_grow(&ab__microtasks) != 0) return AB_ENOMEM;
  return ab_promise_settled_enqueue(p, fn, arg);
}

int ab_promise_settled_enqueue(ab_promise_t *p, ab_microtask_fn fn, void *arg) {
  if (p->state == AB_PENDING) return 0;
  if (UNLIKELY(ab__queue_full(&ab__microtasks))) return settled_enqueue_grow(p, fn, arg);
  p->flags |= F_HANDLED;
  ab__queue_put(&ab__microtasks, fn, arg);
  return 1;
}

/* The hot constructors below take their promise only when the pool has one
 * (no call, so no stack frame); otherwise these refill it and try again. */
ab_promise_t *ab__promise_new_shared_slow(void) {
  ab_promise_t *p = promise_alloc();
  if (p != NULL) p->refs = 2;
  return p;
}

ab_promise_t *ab__promise_settled_slow(int code, const char *message, void *value) {
  ab_promise_t *p = promise_alloc();
  if (p == NULL) return NULL;
  p->flags = F_RESOLVED;
  if (code == 0) {
    fulfil(p, value, NULL);
  } else {
    reject(p, (ab_reason_t){code, message, NULL, NULL});
  }
  return p;
}


int ab__promise_await_slow(ab_promise_t *p, ab_microtask_fn resume, void *arg) {
  p->flags |= F_HANDLED;
  if (p->state != AB_PENDING) { /* the queue is full */
    if (ab__queue_grow(&ab__microtasks) != 0) return AB_ENOMEM;
    ab__queue_put(&ab__microtasks, resume, arg);
    return 0;
  }
  reaction_t *r = record_in(p);  /* pooled: p's slot is busy */
  if (UNLIKELY(r == NULL)) return AB_ENOMEM;
  ab__promise_add_wake(p, r, resume, arg);
  return 0;
}

void ab__promise_return_slow(ab_promise_t *p, int code, const char *message, void *value) {
  if (LIKELY(code == 0)) {
    if (LIKELY(!(p->flags & F_RESOLVED))) {
      p->flags |= F_RESOLVED;
      fulfil(p, value, NULL);
    }
  } else {
    ab_promise_reject(p, code, message);
  }
  unref(p);
}

/* ab__promise_fulfil_drain when p has no reaction or several, or was
 * resolved already. */
static COLD_FREE void fulfil_drain_slow(ab_promise_t *p, void *value) {
  ab_promise_resolve(p, value, NULL);
  unref(p);
  ab_microtasks_drain();
}

void ab__promise_fulfil_drain(ab_promise_t *p, void *value) {
  reaction_t *r = p->reactions;
  if (UNLIKELY((p->flags & (F_RESOLVED | F_LOCKED)) || r == NULL || r->next != NULL)) {
    fulfil_drain_slow(p, value);
    return;
  }
  /* One reaction: settle as fulfil() does, and hand the job queue_reaction
   * would queue to the drain rather than to the ring.  The record is read,
   * or moved out of the slot, before the value takes the slot's place. */
  p->flags |= F_RESOLVED;
  ab_microtask_fn fn;
  void *arg;
  int wake = KIND(r) == AB__RX_WAKE, held = 0;
  uint32_t index = 0;
  if (LIKELY(!wake)) {  /* the caller's reference becomes the job's */
    if (r != &p->rx) {
      r->settled = p;
    } else if (p->rx_head.kind == AB__RX_ELEMENT) {  /* stays, as in settle() */
      held = 1;
      index = r->u.index;
    } else {
      r = slot_out(p);
      r->settled = p;
    }
    fn = jobs[KIND(r)];
    arg = r;
  } else {
    fn = r->f.wake;
    arg = r->arg;
    record_free(r);
  }
  p->state = AB_FULFILLED;
  p->flags |= F_RX_BUSY; /* the slot holds the value */
  p->message = NULL;
  p->code = 0;
  p->ptr = value;
  p->type = NULL;
  if (held) p->held_index = index;
  if (wake) unref(p);
  if (UNLIKELY(ab__microtask_run_first(fn, arg) != 0)) die_oom();
}

int ab_promise_on_settle(ab_promise_t *p, ab_reaction_fn fn, void *arg) {
  reaction_t *r = record_in(p);
  if (r == NULL) return AB_ENOMEM;
  SET_KIND(r, AB__RX_RAW);
  r->f.raw = fn;
  r->arg = arg;
  add_reaction(p, r);
  return 0;
}

static void run_element(combo_t *c, size_t i, ab_promise_t *p);

/* finally's then: on_finally's result (or undefined), then a thunk that
 * passes p's outcome on (ECMAScript 27.2.5.3, thenFinally/catchFinally). */
static void run_finally(reaction_t *r, ab_promise_t *p) {
  ab_promise_t *d = owner_of(r);
  ab_finally_fn fn = r->f.fin;
  void *arg = r->arg;
  d->flags &= (uint8_t)~(F_RX_BUSY | F_LOCKED);
  ab_promise_t *result = fn(arg);
  if (result == NULL) {  /* PromiseResolve(undefined): a fulfilled promise */
    result = promise_alloc();
    if (result == NULL) die_oom();
    result->flags |= F_RESOLVED;
    fulfil(result, NULL, NULL);
  }
  ab_promise_t *thunk = promise_alloc();
  if (thunk == NULL) die_oom();
  thunk->refs = 2;
  thunk->flags = F_RX_BUSY | F_LOCKED;
  reaction_t *t = &thunk->rx;
  SET_KIND(t, AB__RX_THUNK);
  t->arg = p;
  p->refs++;
  add_reaction(result, t);
  ab_promise_release(result);
  if (!(d->flags & F_RESOLVED)) {
    d->flags |= F_RESOLVED;
    resolve_value(d, thunk, &ab_promise_type);  /* takes thunk's caller ref */
  } else {
    ab_promise_release(thunk);
  }
  unref(d);
}

/* then/catch's PromiseReactionJob: the handler for p's state settles d, the
 * derived promise r lives in.  Drops the job's reference of p. */
static HOT_INLINE void run_then(reaction_t *r, ab_promise_t *p) {
  ab_promise_t *d = owner_of(r);
  ab_then_fn h = p->state == AB_FULFILLED ? r->f.then : r->u.on_rejected;
  void *arg = r->arg;
  d->flags &= (uint8_t)~(F_RX_BUSY | F_LOCKED);
  if (h) {
    h(arg, p, d);
    if (!(d->flags & F_RESOLVED)) {
      d->flags |= F_RESOLVED;
      fulfil(d, NULL, NULL);
    }
  } else if (!(d->flags & F_RESOLVED)) {
    d->flags |= F_RESOLVED;
    settle_like(d, p);
  }
  unref(d);
  unref(p);
}

/* then()'s PromiseReactionJob. */
static void run_then_job(void *job) {
  reaction_t *r = job;
  run_then(r, r->settled);
}

/* ab_promise_then_release's PromiseReactionJob for a pooled record (one
 * that was in p's slot runs as then()'s: slot_out): the derived promise,
 * which nobody else could hold, is made now, pending, and settled as
 * then()'s is.  Drops the job's reference of p. */
static void run_then_later_job(void *job) {
  reaction_t *r = job;
  ab_promise_t *p = r->settled;
  ab_then_fn h = p->state == AB_FULFILLED ? r->f.then : r->u.on_rejected;
  void *arg = r->arg;
  record_free(r);
  ab_promise_t *d = promise_alloc();
  if (UNLIKELY(d == NULL)) die_oom();
  if (h) {
    h(arg, p, d);
    if (!(d->flags & F_RESOLVED)) {
      d->flags |= F_RESOLVED;
      fulfil(d, NULL, NULL);
    }
  } else {
    d->flags |= F_RESOLVED;
    settle_like(d, p);
  }
  unref(d);
  unref(p);
}

/* ab_promise_on_settle's PromiseReactionJob. */
static void run_raw_job(void *job) {
  reaction_t *r = job;
  ab_promise_t *p = r->settled;
  ab_reaction_fn fn = r->f.raw;
  void *arg = r->arg;
  record_free(r);
  fn(arg, p);
  unref(p);
}

/* A combinator element's PromiseReactionJob. */
static void run_element_job(void *job) {
  reaction_t *r = job;
  combo_t *c = r->arg;
  ab_promise_t *p;
  size_t i;
  if (ab__rx_head(r)->pooled) {
    p = r->settled;
    i = r->u.index;
    pool_put(&reaction_pool, (char *)r - offsetof(pooled_rx_t, r));
  } else {  /* left in p's slot when p settled (settle) */
    p = owner_of(r);
    i = p->held_index;
  }
  run_element(c, i, p);
  unref(p);
}

/* finally()'s PromiseReactionJob. */
static void run_finally_job(void *job) {
  reaction_t *r = job;
  ab_promise_t *p = r->settled;
  run_finally(r, p);
  unref(p);
}

/* The reaction of finally's valueThunk or thrower: its promise settles like
 * the original (arg) when on_finally's result fulfilled, like that result
 * when it rejected. */
static void run_thunk_job(void *job) {
  reaction_t *r = job;
  ab_promise_t *p = r->settled;
  ab_promise_t *d = owner_of(r), *orig = r->arg;
  d->flags &= (uint8_t)~(F_RX_BUSY | F_LOCKED);
  d->flags |= F_RESOLVED;
  settle_like(d, p->state == AB_REJECTED ? p : orig);
  ab_promise_release(orig);
  unref(d);
  unref(p);
}

/* An adoption's reaction: the adopting promise settles like the source. */
static void run_adopt_job(void *job) {
  reaction_t *r = job;
  ab_promise_t *p = r->settled;
  ab_promise_t *t = adopter_of(r);
  record_free(r);
  settle_like(t, p);
  ab_promise_release(t);
  unref(p);
}

/* ---- combinators --------------------------------------------------------- */

static void combo_release(combo_t *c) {
  if (--c->refs != 0) return;
  if (c->list) list_release(c->list);
  ab_promise_release(c->result);
  pool_put(&combo_pool, c);
}

/* Input i of combinator c has settled as p (its record is free). */
static void run_element(combo_t *c, size_t i, ab_promise_t *p) {
  ab_promise_t *res = c->result;
  int fulfilled = p->state == AB_FULFILLED;
  switch (c->kind) {
  case COMBO_ALL:
  case COMBO_ALL_SETTLED:
  case COMBO_ANY:
    if ((c->kind == COMBO_ALL && !fulfilled) || (c->kind == COMBO_ANY && fulfilled)) {
      if (!(res->flags & F_RESOLVED)) {  /* first rejection (all) or fulfilment (any) */
        res->flags |= F_RESOLVED;
        settle_like(res, p);
      }
      break;
    }
    ab_settled_t *it = &c->list->items[i];
    it->state = (ab_promise_state_t)p->state;
    it->code = p->code;
    it->message = p->message;
    it->ptr = p->ptr;
    it->type = p->type;
    value_retain(p->ptr, p->type);
    if (--c->remaining == 0 && !(res->flags & F_RESOLVED)) {
      res->flags |= F_RESOLVED;
      ab_list_t *l = c->list;
      c->list = NULL;
      if (c->kind == COMBO_ANY)
        reject(res, (ab_reason_t){AB_EAGGREGATE, NULL, l, &ab_list_type});
      else
        fulfil(res, l, &ab_list_type);
    }
    break;
  case COMBO_RACE:
    if (!(res->flags & F_RESOLVED)) {
      res->flags |= F_RESOLVED;
      settle_like(res, p);
    }
    break;
  }
  combo_release(c);
}

static ab_promise_t *combinator(int kind, ab_promise_t *const *ps, size_t n) {
  ab_promise_t *res = promise_alloc();
  if (res == NULL) return NULL;
  if (n == 0) {
    res->flags |= F_RESOLVED;
    if (kind == COMBO_RACE) return res;  /* forever pending */
    ab_list_t *l = list_new(0);
    if (l == NULL) die_oom();
    if (kind == COMBO_ANY)
      reject(res, (ab_reason_t){AB_EAGGREGATE, NULL, l, &ab_list_type});
    else
      fulfil(res, l, &ab_list_type);
    return res;
  }
  combo_t *c = pool_get(&combo_pool);
  if (c == NULL) die_oom();
  c->refs = 1;
  c->kind = (uint8_t)kind;
  c->remaining = n;
  c->result = res;
  res->refs++;
  c->list = NULL;
  if (kind != COMBO_RACE && (c->list = list_new(n)) == NULL) die_oom();
  for (size_t i = 0; i < n; i++) {
    reaction_t *r = record_in_often_pooled(ps[i]);
    if (r == NULL) die_oom();
    SET_KIND(r, AB__RX_ELEMENT);
    r->u.index = (uint32_t)i;
    r->arg = c;
    c->refs++;
    add_reaction(ps[i], r);
  }
  combo_release(c);
  return res;
}

ab_promise_t *ab_promise_all(ab_promise_t *const *ps, size_t n) {
  return combinator(COMBO_ALL, ps, n);
}

ab_promise_t *ab_promise_all_settled(ab_promise_t *const *ps, size_t n) {
  return combinator(COMBO_ALL_SETTLED, ps, n);
}

ab_promise_t *ab_promise_race(ab_promise_t *const *ps, size_t n) {
  return combinator(COMBO_RACE, ps, n);
}

ab_promise_t *ab_promise_any(ab_promise_t *const *ps, size_t n) {
  return combinator(COMBO_ANY, ps, n);
}

/* ---- state --------------------------------------------------------------- */

ab_promise_state_t ab_promise_state(const ab_promise_t *p) {
  return (ab_promise_state_t)p->state;
}

int ab_promise_is_resolved(const ab_promise_t *p) { return (p->flags & F_RESOLVED) != 0; }

void *ab_promise_value(const ab_promise_t *p) {
  return p->state == AB_FULFILLED ? p->ptr : NULL;
}

const ab_type_t *ab_promise_value_type(const ab_promise_t *p) {
  return p->state == AB_FULFILLED ? p->type : NULL;
}

ab_reason_t ab_promise_reason(const ab_promise_t *p) {
  if (p->state != AB_REJECTED) return (ab_reason_t){0, NULL, NULL, NULL};
  return (ab_reason_t){p->code, p->message, p->ptr, p->type};
}

int ab_promise_code(const ab_promise_t *p) {
  return p->state == AB_REJECTED ? p->code : 0;
}

const char *ab_promise_message(const ab_promise_t *p) {
  return p->state == AB_REJECTED ? p->message : NULL;
}

/* ---- errors and diagnostics ---------------------------------------------- */

const char *ab_promise_strerror(int code) {
  switch (code) {
  case AB_PROMISE_OK: return "success";
  case AB_ETYPE: return "TypeError: a promise was resolved with itself";
  case AB_EAGGREGATE: return "All promises were rejected";
  case AB_ENOMEM: return "out of memory";
  case AB_EALREADY: return "promise already resolved";
  case AB_ETHROWN: return "a foreign exception was thrown";
  }
  if (code < 0 && code > -4096) return uv_strerror(code);
  return "unknown error";
}

const char *ab_promise_errname(int code) {
  switch (code) {
  case AB_PROMISE_OK: return "OK";
  case AB_ETYPE: return "ETYPE";
  case AB_EAGGREGATE: return "EAGGREGATE";
  case AB_ENOMEM: return "ENOMEM";
  case AB_EALREADY: return "EALREADY";
  case AB_ETHROWN: return "ETHROWN";
  }
  if (code < 0 && code > -4096) return uv_err_name(code);
  return "E?";
}

size_t ab_promise_live(void) { return promise_pool.live; }

void ab_promise_pool_trim(void) {
  pool_trim(&promise_pool);
  pool_trim(&reaction_pool);
  pool_trim(&combo_pool);
  pool_trim(&list_pool);
  ab_microtasks_trim();
}
