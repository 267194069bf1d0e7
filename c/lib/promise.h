/*
 * promise.h -- Promises/A+ promises in C, for one libuv loop thread.  Their
 * jobs run from the microtask queue of microtask.h (included here).
 *
 * Features
 *   - pending -> fulfilled | rejected, settled once; ab_promise_then() returns
 *     a new (derived) promise; catch, finally, resolved/rejected helpers;
 *     all, allSettled, race, any with JavaScript's semantics.
 *   - Reactions never run synchronously: settling a promise queues one
 *     microtask per reaction, in registration order, and the queue is drained
 *     by ab_microtasks_drain() (microtask.h: after the ticks, as in Node).  The number of microtask "ticks" each step
 *     takes follows ECMAScript (and so V8/Node): resolving with a promise or
 *     a thenable takes a NewPromiseResolveThenableJob tick and then a reaction
 *     tick; finally() composes then() exactly as the specification does.
 *     Reaction order therefore matches what Node prints for the same program
 *     (c/tests/ordering/ holds the snippets that check it).
 *   - Resolution procedure (A+ 2.3): resolving a promise with itself rejects
 *     it with AB_ETYPE; with another ab promise (type &ab_promise_type) adopts
 *     its state; with a value whose type has thenable hooks adopts the
 *     thenable (get_then once, call_then from a microtask, first call of the
 *     resolver wins); anything else fulfils.
 *   - Values are opaque pointers with an optional type (ab_type_t) that gives
 *     them reference counting hooks.  A rejection reason is a code (an
 *     ab_promise_err, a negative libuv error, or the caller's own), a static
 *     message, and an optional typed payload (e.g. a foreign error object).
 *   - Unhandled rejections: a promise rejected with no reaction, still
 *     without one when the microtask queue has drained, is reported once (by
 *     default one line on stderr, as Node warns; ab_promise_on_unhandled()
 *     replaces the reporter).
 *   - Cheap: promises (48 bytes) come from a free list refilled in slabs.
 *     A promise has one inline reaction record, which shares its space with
 *     the value and so serves only while the promise is pending: the
 *     reaction a then() registers lives in the derived promise it settles;
 *     otherwise the slot takes the first raw reaction, await, combinator
 *     element or then_release registered on the pending promise, and is
 *     moved out when it settles.  Further ones come from a pooled free
 *     list; a combinator's state and its result list (up to 4 inputs) come
 *     from pools too.  A reaction record carries the kind of job that runs
 *     it, and an await registers no job of its own: settling queues the
 *     awaiter's resumption directly.  No locks, no per-then allocation
 *     beyond the derived promise, and none at all while pending for
 *     ab_promise_then_release (a then() whose derived promise the caller
 *     drops at once: made when the promise settles).  One then() step
 *     (create, then, resolve, the reaction in the drain, both releases) is
 *     ~246 instructions on x86_64.
 *
 * Ownership (reference counting)
 *   - Every function returning ab_promise_t * returns a NEW reference that the
 *     caller must give back with ab_promise_release() (then, catch, finally,
 *     new, resolved, rejected, all, allSettled, race, any).  Ignoring a derived
 *     promise is `ab_promise_release(ab_promise_then(...))`.
 *   - Reactions, queued jobs and adoptions hold their own references, so a
 *     caller may release a promise as soon as it no longer needs it.  A
 *     pending promise whose last reference goes away can never settle: it is
 *     freed with its reactions, which are dropped without being called.
 *   - Typed values move: resolve/reject take over ONE reference of the value
 *     or payload they are given (type->release is called when the promise is
 *     freed; type->retain whenever the core copies the value into another
 *     promise or a combinator list).  A value with a NULL type is borrowed:
 *     the caller keeps it alive for as long as promises may hand it out.
 *   - Accessors return borrowed values, valid while the promise is.
 *   - The `arg` given with a reaction belongs to the caller; the core never
 *     frees it.
 *
 * Running the queues with libuv
 *   Node drains ticks and microtasks after every macrotask callback.  Code
 *   that owns a libuv callback which may settle promises calls
 *   ab_microtasks_drain() (microtask.h) at its end (cheap when both queues
 *   are empty).  ab_promise_loop_attach() adds a
 *   safety net: an unref'd uv_prepare (runs before the loop may block in poll)
 *   and an unref'd uv_check (runs right after I/O callbacks), both draining;
 *   being unref'd they never keep the loop alive.  ab_promise_loop_run() runs
 *   the loop until neither it nor the queues have work; ab_promise_loop_detach()
 *   closes the two handles (run the loop once more, e.g. via
 *   ab_promise_loop_run(), before uv_loop_close() so it returns 0).
 *
 * Caveats
 *   - One thread: all state (queues, pools) is per process and unlocked; use
 *     promises only from the loop thread.
 *   - ab_microtasks_drain() is not reentrant: called from inside a microtask it
 *     returns 0 at once (the outer drain runs what was queued).
 *   - The core's own jobs end the process when the queue cannot grow (they
 *     have nobody to report it to): "ab_promise: out of memory" and exit 3.
 *   - A then() handler "returns" by settling `out` (resolve, reject, or resolve
 *     with a promise to adopt it) before it returns; if it leaves `out`
 *     unresolved, `out` is fulfilled with NULL (JavaScript's undefined).
 */
#ifndef AB_PROMISE_H
#define AB_PROMISE_H

#include <stddef.h>
#include <stdint.h>

#include "microtask.h"

struct uv_loop_s;

typedef struct ab_promise_s ab_promise_t;
typedef struct ab_resolver_s ab_resolver_t;
typedef struct ab_type_s ab_type_t;

/* Errors and rejection codes of the core (libuv errors are negative too but
 * stay above -4096; these never collide with them). */
typedef enum ab_promise_err {
  AB_PROMISE_OK = 0,
  AB_ETYPE = -30001,      /* TypeError: a promise resolved with itself */
  AB_EAGGREGATE = -30002, /* any(): every input rejected; payload is an ab_list_t */
  AB_ENOMEM = -30003,     /* out of memory */
  AB_EALREADY = -30004,   /* resolve/reject of an already resolved promise: ignored */
  AB_ETHROWN = -30005     /* a foreign exception (the payload is the thrown value) */
} ab_promise_err_t;

/* Message for a code: the core's own, libuv's for negative libuv codes. */
const char *ab_promise_strerror(int code);

/* Short name for a code ("ETYPE", "ENOENT", ...); "E?" when unknown. */
const char *ab_promise_errname(int code);

typedef enum ab_promise_state {
  AB_PENDING = 0,
  AB_FULFILLED = 1,
  AB_REJECTED = 2
} ab_promise_state_t;

/* A rejection reason: code, static message (may be NULL), optional payload. */
typedef struct ab_reason_s {
  int code;
  const char *message;
  void *ptr;
  const ab_type_t *type;
} ab_reason_t;

/* What a typed value can do.  Every hook may be NULL. */
struct ab_type_s {
  const char *name;
  void (*retain)(void *ptr);   /* one more reference */
  void (*release)(void *ptr);  /* one reference less */
  /* Thenable test, called once, synchronously, when a promise is resolved
   * with a value of this type: returns 0 (not a thenable: fulfil with it),
   * 1 (a thenable: *then is an owned handle to its then) or -1 (looking
   * failed: *thrown is the rejection reason, its payload moves to the core). */
  int (*get_then)(void *ptr, void **then, ab_reason_t *thrown);
  /* Calls `then` on ptr from a microtask with a resolver; owns `then` and
   * one reference of `resolver` (release it with ab_resolver_release()).  If
   * the call throws, reject the resolver (ignored when already resolved). */
  void (*call_then)(void *ptr, void *then, ab_resolver_t *resolver);
};

/* The type of values that are ab promises: resolving with one adopts it. */
extern const ab_type_t ab_promise_type;

/* One settled input of a combinator: state, then value (fulfilled) or the
 * reason's code, message and payload (rejected) in code/message/ptr/type. */
typedef struct ab_settled_s {
  ab_promise_state_t state;
  int code;
  const char *message;
  void *ptr;
  const ab_type_t *type;
} ab_settled_t;

/* A combinator's result list (type &ab_list_type, reference counted). */
typedef struct ab_list_s {
  uint32_t refs;          /* private */
  size_t n;
  ab_settled_t items[];   /* in input order */
} ab_list_t;

/* The type of ab_list_t values (all, allSettled, any's aggregate payload). */
extern const ab_type_t ab_list_type;

/* ---- life cycle ---------------------------------------------------------- */

/* A new pending promise (one reference), NULL when out of memory. */
ab_promise_t *ab_promise_new(void);

/* Adds a reference; returns p. */
ab_promise_t *ab_promise_retain(ab_promise_t *p);

/* Drops a reference; the last one frees p (NULL is ignored). */
static inline void ab_promise_release(ab_promise_t *p); /* inline: see the private part */

/* Resolves p with a value (A+ 2.3: adopts a promise or thenable, rejects with
 * AB_ETYPE if it is p itself).  Takes over one reference of a typed value.
 * Returns 0, or AB_EALREADY (p already resolved; the value is released).
 * A promise returned by then(), catch() or finally() is resolved only by its
 * reaction, as in JavaScript, where nothing else holds its resolving
 * functions: before its handler runs, resolving or rejecting it from outside
 * returns AB_EALREADY; the handler's `out` may be settled as usual. */
int ab_promise_resolve(ab_promise_t *p, void *ptr, const ab_type_t *type);

/* Resolves p with promise x (adopts it); x's reference stays the caller's. */
int ab_promise_resolve_promise(ab_promise_t *p, ab_promise_t *x);

/* Rejects p with a code and a static message (NULL: ab_promise_strerror). */
int ab_promise_reject(ab_promise_t *p, int code, const char *message);

/* Rejects p with a full reason; takes over the payload's reference. */
int ab_promise_reject_reason(ab_promise_t *p, ab_reason_t reason);

/* A promise resolved with a value (Promise.resolve): for a value of type
 * &ab_promise_type that promise itself (the reference given is the one
 * returned); otherwise a new promise resolved as by ab_promise_resolve (so a
 * thenable is adopted).  Takes over the value. */
ab_promise_t *ab_promise_resolved(void *ptr, const ab_type_t *type);

/* A promise rejected with a code and a static message (Promise.reject). */
ab_promise_t *ab_promise_rejected(int code, const char *message);

/* ---- state --------------------------------------------------------------- */

/* AB_PENDING, AB_FULFILLED or AB_REJECTED. */
ab_promise_state_t ab_promise_state(const ab_promise_t *p);

/* True once resolve or reject was called on p (it may still be pending,
 * following another promise or thenable). */
int ab_promise_is_resolved(const ab_promise_t *p);

/* The fulfilment value (borrowed); NULL unless fulfilled. */
void *ab_promise_value(const ab_promise_t *p);

/* The fulfilment value's type; NULL unless fulfilled with a typed value. */
const ab_type_t *ab_promise_value_type(const ab_promise_t *p);

/* The rejection reason (payload borrowed); code 0 unless rejected. */
ab_reason_t ab_promise_reason(const ab_promise_t *p);

/* The rejection code; 0 unless rejected. */
int ab_promise_code(const ab_promise_t *p);

/* The rejection message (never NULL when rejected); NULL unless rejected. */
const char *ab_promise_message(const ab_promise_t *p);

/* ---- reactions ----------------------------------------------------------- */

/* A then() handler: `settled` is the promise that settled (read its value or
 * reason), `out` the derived promise it settles (see Caveats). */
typedef void (*ab_then_fn)(void *arg, ab_promise_t *settled, ab_promise_t *out);

/* p.then(on_fulfilled, on_rejected): a NULL handler passes the value or the
 * reason through.  Returns the derived promise (NULL: out of memory). */
ab_promise_t *ab_promise_then(ab_promise_t *p, ab_then_fn on_fulfilled,
                              ab_then_fn on_rejected, void *arg);

/* ab_promise_release(ab_promise_then(p, on_fulfilled, on_rejected, arg)) in
 * one call, for a caller that does not keep the derived promise: the same
 * reaction, job, tick and outcome (the handler settles a fresh pending `out`;
 * a rejection nobody handles is reported), but the derived promise, which
 * only the reaction would hold until it runs, is made when p settles (for a
 * record in p's slot; when the reaction runs for a pooled one), so a pending
 * reaction costs no promise of its own.  The record sits in p's slot when
 * free and p pending (the pool's otherwise).  Returns 0 or AB_ENOMEM (out of
 * memory for the derived promise later ends the process, as for the core's
 * other jobs). */
int ab_promise_then_release(ab_promise_t *p, ab_then_fn on_fulfilled,
                            ab_then_fn on_rejected, void *arg);

/* p.catch(on_rejected): then(p, NULL, on_rejected, arg). */
ab_promise_t *ab_promise_catch(ab_promise_t *p, ab_then_fn on_rejected, void *arg);

/* A finally() callback: returns NULL (JavaScript's undefined) or a promise
 * (one reference, taken over) that is waited for; if that promise rejects,
 * the finally() promise rejects with its reason. */
typedef ab_promise_t *(*ab_finally_fn)(void *arg);

/* p.finally(on_finally): settles like p once on_finally's result settled. */
ab_promise_t *ab_promise_finally(ab_promise_t *p, ab_finally_fn on_finally, void *arg);

/* A raw reaction: called from a microtask once p has settled. */
typedef void (*ab_reaction_fn)(void *arg, ab_promise_t *settled);

/* Registers a raw reaction on p without a derived promise (for coroutines:
 * await).  Marks p handled.  Returns 0 or AB_ENOMEM. */
int ab_promise_on_settle(ab_promise_t *p, ab_reaction_fn fn, void *arg);

/* For await (async.c): if p has settled, marks it handled and queues fn(arg)
 * where a reaction registered on p now would be queued (after every job
 * queued already, so the order is the one PerformPromiseThen gives), and
 * returns 1; that skips the reaction record and the reference the job would
 * hold, so the caller keeps p alive until fn has run.  Returns 0, doing
 * nothing, while p is pending; AB_ENOMEM if the queue cannot grow. */
int ab_promise_settled_enqueue(ab_promise_t *p, ab_microtask_fn fn, void *arg);

/* ---- combinators (inputs stay the caller's; n may be 0) ------------------ */

/* Fulfils with an ab_list_t of the values in input order; rejects with the
 * first rejection.  Empty input: fulfilled (synchronously) with an empty list. */
ab_promise_t *ab_promise_all(ab_promise_t *const *ps, size_t n);

/* Fulfils, once all settled, with an ab_list_t of every outcome. */
ab_promise_t *ab_promise_all_settled(ab_promise_t *const *ps, size_t n);

/* Settles like the first input to settle.  Empty input: pending forever. */
ab_promise_t *ab_promise_race(ab_promise_t *const *ps, size_t n);

/* Fulfils with the first fulfilment; if every input rejects, rejects with
 * AB_EAGGREGATE and an ab_list_t of the reasons (empty input: at once). */
ab_promise_t *ab_promise_any(ab_promise_t *const *ps, size_t n);

/* ---- thenable resolvers (for types with get_then/call_then) -------------- */

/* Resolves the promise behind r (first call of r wins); takes the value. */
int ab_resolver_resolve(ab_resolver_t *r, void *ptr, const ab_type_t *type);

/* Rejects the promise behind r (first call of r wins); takes the payload. */
int ab_resolver_reject(ab_resolver_t *r, ab_reason_t reason);

/* Adds a reference to r; returns r. */
ab_resolver_t *ab_resolver_retain(ab_resolver_t *r);

/* Drops a reference to r. */
void ab_resolver_release(ab_resolver_t *r);

/* ---- libuv integration (promise_uv.c) ------------------------------------ */

/* Starts the unref'd prepare+check safety net on loop; 0 or a libuv error. */
int ab_promise_loop_attach(struct uv_loop_s *loop);

/* Closes the safety net's handles (they finish at the next loop run). */
void ab_promise_loop_detach(void);

/* Runs loop and the queue until neither has work; returns uv_run's last. */
int ab_promise_loop_run(struct uv_loop_s *loop);

/* ---- unhandled rejections and diagnostics -------------------------------- */

/* Called once per promise still rejected without a reaction after a drain. */
typedef void (*ab_unhandled_fn)(void *arg, ab_promise_t *p);

/* Replaces the unhandled-rejection reporter (NULL: the default, one line on
 * stderr: "ab_promise: unhandled rejection: NAME: message"). */
void ab_promise_on_unhandled(ab_unhandled_fn fn, void *arg);

/* How many unhandled rejections have been reported so far. */
size_t ab_promise_unhandled_count(void);

/* Promises currently allocated (not yet freed): 0 when nothing leaks. */
size_t ab_promise_live(void);

/* Gives pooled memory back to the allocator, the queues' included (call at
 * teardown). */
void ab_promise_pool_trim(void);

/* ---- private: the layout, and the fast paths of await (async.h, stackless.h)
 * The layout is here only so that the two fast paths below inline into an
 * awaiter: settled-promise await marks p handled and queues on the microtask
 * ring as promise.c does, and an await's outcome reads p.  Everything else
 * that touches these fields is promise.c's. */

#include "counters.h"
#include "microtask_internal.h"

enum {
  AB__P_RESOLVED = 1,  /* resolve/reject was called (or adoption began) */
  AB__P_HANDLED = 2,   /* a reaction was ever registered */
  AB__P_RX_BUSY = 4,   /* the inline record is in use (pending), or holds
                        * the value (settled) */
  AB__P_LISTED = 8,    /* in the unhandled-rejection list */
  AB__P_LOCKED = 16    /* its record waits on another promise to settle it
                        * (then, finally, a thunk): only that reaction may */
};

/* A record's kind, which names the job that runs it (promise.c: jobs[]):
 * then/catch (settles the promise it is inline in, the derived one),
 * then_release's (the derived promise made when it runs), finally, a thunk
 * (finally's valueThunk/thrower: settles its promise like arg), an adoption
 * (resolve-with-promise: the adopting promise settles like the source), raw
 * (ab_promise_on_settle), a combinator's element, and an await's wake-up
 * (f.wake(arg) is queued when the promise settles: no job of the core). */
enum {
  AB__RX_WAKE = 0,
  AB__RX_THEN,
  AB__RX_THEN_LATER,
  AB__RX_FINALLY,
  AB__RX_THUNK,
  AB__RX_ADOPT,
  AB__RX_RAW,
  AB__RX_ELEMENT
};

/* A reaction record (32 bytes).  Its kind and where it lives are in the two
 * bytes just before it (ab__rx_head): a promise's inline record has them in
 * the promise's header, a pooled one in its own. */
struct ab__reaction_s {
  union {
    struct ab__reaction_s *next; /* waiting: the next on the promise's list */
    ab_promise_t *settled;       /* queued: the promise that settled */
  };
  union {
    ab_then_fn then;        /* then: on_fulfilled */
    ab_finally_fn fin;      /* finally */
    ab_reaction_fn raw;     /* raw */
    ab_microtask_fn wake;   /* wake-up */
    ab_promise_t *target;   /* a pooled adoption: the adopting promise */
  } f;
  union {
    ab_then_fn on_rejected; /* then */
    uint32_t index;         /* element: input position */
  } u;
  void *arg;                /* handler arg; thunk: the original promise;
                             * element: the combinator state; wake-up: f.wake's */
};

/* The two bytes before every record. */
typedef struct ab__rx_head_s {
  uint8_t kind;             /* AB__RX_* */
  uint8_t pooled;           /* from the records' pool, not a promise's slot */
} ab__rx_head_t;

#define ab__rx_head(r) ((ab__rx_head_t *)((char *)(r) - sizeof(ab__rx_head_t)))

/* A promise (48 bytes).  The inline record shares its space with the
 * settled value: it is used only while the promise is pending, and a record
 * still in it when the promise settles is moved out first (promise.c:
 * settle).  The first word doubles as the pool's free-list link. */
struct ab_promise_s {
  union {
    struct ab__reaction_s *reactions; /* pending: newest first */
    const char *message;    /* settled: the reason's message (NULL unless rejected) */
  };
  uint32_t refs;
  uint8_t state;
  uint8_t flags;
  ab__rx_head_t rx_head;    /* the inline record's kind (pooled is 0) */
  union {
    struct ab__reaction_s rx; /* pending: the inline record */
    struct {                /* settled */
      int32_t code;         /* rejected: the reason's code */
      uint32_t held_index;  /* a combinator element that was in the slot:
                             * its input position (its arg stays in place,
                             * after type: promise.c, settle) */
      void *ptr;            /* fulfilled: value; rejected: payload */
      const ab_type_t *type;
    };
  };
};

/* The promises' pool (promise.c's, whose other pools are alike): free
 * objects linked through their first word, taken from slabs.  Its fast ends
 * are inlined below, except under AddressSanitizer, where promise.c poisons
 * a free object and every take and put is its own. */
typedef struct ab__pool_s {
  void *free;               /* free objects, linked through their first word */
  void *slabs;
  size_t size;
  size_t live;
} ab__pool_t;

extern ab__pool_t ab__promise_pool;

#if defined(__SANITIZE_ADDRESS__)
#define AB__PROMISE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AB__PROMISE_ASAN 1
#endif
#endif

/* Out of line: the general ends (an empty pool, a pending or typed promise's
 * last release, a rejection). */
ab_promise_t *ab__promise_new_shared_slow(void);
ab_promise_t *ab__promise_settled_slow(int code, const char *message, void *value);
void ab__promise_free(ab_promise_t *p);

/* p, just taken from the pool, made a pending promise with refs references. */
static inline ab_promise_t *ab__promise_init(ab_promise_t *p, uint32_t refs) {
  p->refs = refs;
  p->state = AB_PENDING;
  p->flags = 0;
  p->rx_head.pooled = 0;
  p->reactions = NULL;
  return p;
}

/* A promise from the pool, which has one (ab__promise_pool.free != NULL). */
static inline ab_promise_t *ab__promise_take(void) {
  void **obj = (void **)ab__promise_pool.free;
  ab__promise_pool.free = *obj;
  ab__promise_pool.live++;
  ab_counters.pool_gets++;
  return (ab_promise_t *)obj;
}

/* A new pending promise with two references (an async function's: the
 * caller's and its own), NULL when out of memory. */
static inline ab_promise_t *ab__promise_new_shared(void) {
#if !defined(AB__PROMISE_ASAN)
  if (__builtin_expect(ab__promise_pool.free != NULL, 1))
    return ab__promise_init(ab__promise_take(), 2);
#endif
  return ab__promise_new_shared_slow();
}

/* A new promise settled as an async function's return settles its own
 * (ab__promise_return): fulfilled with the untyped value (code 0) or
 * rejected with code and message; NULL when out of memory. */
static inline ab_promise_t *ab__promise_settled(int code, const char *message, void *value) {
#if !defined(AB__PROMISE_ASAN)
  if (__builtin_expect(code == 0 && ab__promise_pool.free != NULL, 1)) {
    ab_promise_t *p = ab__promise_take();
    p->refs = 1;
    p->state = AB_FULFILLED;
    p->flags = AB__P_RESOLVED | AB__P_RX_BUSY; /* the slot holds the value */
    p->message = NULL;
    p->code = 0;
    p->ptr = value;
    p->type = NULL;
    return p;
  }
#endif
  return ab__promise_settled_slow(code, message, value);
}

/* Drops one reference of p (NULL: nothing); the last one frees it. */
static inline void ab_promise_release(ab_promise_t *p) {
  if (p == NULL || --p->refs != 0)
    return;
#if !defined(AB__PROMISE_ASAN)
  /* Settled with an untyped value, the common end: nothing to drop or
   * release, straight back to the free list. */
  if (__builtin_expect(p->state != AB_PENDING && p->type == NULL, 1)) {
    *(void **)p = ab__promise_pool.free;
    ab__promise_pool.free = p;
    ab__promise_pool.live--;
    return;
  }
#endif
  ab__promise_free(p);
}

/* ab__promise_return out of line: a rejection, and every p but the common
 * one below (and every p under AddressSanitizer). */
void ab__promise_return_slow(ab_promise_t *p, int code, const char *message, void *value);

/* An async function's return: fulfils p with the untyped value (code 0) or
 * rejects it with code and message, then drops one reference.  Inline for
 * the common end of a call that suspended: fulfilled, its one reaction its
 * caller's await in p's own slot, whose wake-up is queued as settling
 * queues it (promise.c: settle), and a reference left to the awaiter.  The
 * record is read before the value takes its place. */
static inline void ab__promise_return(ab_promise_t *p, int code, const char *message,
                                      void *value) {
#if !defined(AB__PROMISE_ASAN)
  struct ab__reaction_s *r = p->reactions;
  if (__builtin_expect(code == 0 && !(p->flags & AB__P_RESOLVED) && r == &p->rx &&
                       r->next == NULL && p->rx_head.kind == AB__RX_WAKE && p->refs > 1 &&
                       !ab__queue_full(&ab__microtasks), 1)) {
    ab_microtask_fn wake = r->f.wake;
    void *arg = r->arg;
    p->flags |= AB__P_RESOLVED; /* the slot, busy, now holds the value */
    p->state = AB_FULFILLED;
    p->message = NULL;
    p->code = 0;
    p->ptr = value;
    p->type = NULL;
    p->refs--;
    ab__queue_put(&ab__microtasks, wake, arg);
    return;
  }
#endif
  ab__promise_return_slow(p, code, message, value);
}

/* The end of a macrotask callback that fulfils p with the untyped value and
 * gives up its reference: ab_promise_resolve(p, value, NULL),
 * ab_promise_release(p), ab_microtasks_drain(), in that order and with the
 * same outcome, but p's one reaction, when it would be the drain's first
 * job, runs at once (ab__microtask_run_first) instead of through the ring.
 * As for the core's other jobs, a queue that cannot grow for the reaction
 * ends the process ("ab_promise: out of memory", exit 3). */
void ab__promise_fulfil_drain(ab_promise_t *p, void *value);

/* ab__promise_await for a pending p whose slot is busy, or a full queue. */
int ab__promise_await_slow(ab_promise_t *p, ab_microtask_fn resume, void *arg);

/* Registers r, a free record (p's slot or a pooled one), as an await's
 * wake-up on pending p: when p settles, resume(arg) is queued where this
 * reaction's job would be, and the record is free at once. */
static inline void ab__promise_add_wake(ab_promise_t *p, struct ab__reaction_s *r,
                                        ab_microtask_fn resume, void *arg) {
  ab__rx_head(r)->kind = AB__RX_WAKE;
  r->f.wake = resume;
  r->arg = arg;
  r->next = p->reactions;
  p->reactions = r;
}

/* What an await does with p before it suspends: marks p handled and queues
 * resume(arg) for when p has settled, where a reaction registered now would
 * have its job queued (at once for a settled p, as
 * ab_promise_settled_enqueue does; for a pending one, from p's settling, in
 * the order of its reactions).  No reaction job runs and no reference is
 * taken: the awaiter keeps p alive until resume has run.  0, or AB_ENOMEM. */
static inline int ab__promise_await(ab_promise_t *p, ab_microtask_fn resume, void *arg) {
  if (p->state == AB_PENDING) {
    if (__builtin_expect(p->flags & AB__P_RX_BUSY, 0))
      return ab__promise_await_slow(p, resume, arg);
    p->flags |= AB__P_HANDLED | AB__P_RX_BUSY; /* the wake-up in p's own slot */
    ab__promise_add_wake(p, &p->rx, resume, arg);
    return 0;
  }
  if (__builtin_expect(ab__queue_full(&ab__microtasks), 0))
    return ab__promise_await_slow(p, resume, arg);
  p->flags |= AB__P_HANDLED;
  ab__queue_put(&ab__microtasks, resume, arg);
  return 0;
}

/* p's outcome as an await returns it: 0 with *value set (fulfilled), or the
 * rejection code (AB_ETHROWN for a rejection with code 0). */
static inline int ab__promise_outcome(const ab_promise_t *p, void **value) {
  if (__builtin_expect(p->state == AB_REJECTED, 0))
    return p->code != 0 ? p->code : AB_ETHROWN;
  *value = p->ptr;
  return 0;
}

#endif /* AB_PROMISE_H */
