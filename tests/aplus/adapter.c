/*
 * adapter.c -- a thin Node-API adapter that exposes the C promise core
 * (c/lib/promise.c and its queue, c/lib/microtask.c, which know nothing of
 * Node) to the Promises/A+ test suite: resolved(value), rejected(reason),
 * deferred().
 *
 * JS values become opaque core values: each is boxed in a holder object
 * ({v: value}, so primitives work too) held by a napi_ref, of type js_type
 * whose retain/release hooks count that reference and whose get_then/call_then
 * hooks do A+ 2.3.3 (look `then` up once; call it with resolve/reject
 * functions that wrap an ab_resolver_t).  Our own promise objects are tagged
 * and resolve as ab promises (A+ 2.3.2: adoption by the core).
 *
 * The microtask queue is the core's: whenever it has work, the adapter asks
 * JS to run drain() soon (via the scheduler given to init, queueMicrotask),
 * so reactions run only once the JS stack holds platform code alone.
 * Garbage-collector finalizers never touch the core directly: they queue
 * their release for the next drain.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "promise.h"

#define CHECK(call)                                                           \
  do {                                                                        \
    if ((call) != napi_ok) {                                                  \
      napi_throw_error(env, NULL, "aplus adapter: " #call " failed");         \
      return NULL;                                                            \
    }                                                                         \
  } while (0)

static napi_env g_env;
static napi_ref g_scheduler;   /* JS function that arranges a drain() call */
static napi_ref g_constructor; /* the CPromise class */
static int g_scheduled;
static const napi_type_tag promise_tag = {0x61622d70726f6d69ULL, 0x73652d61706c7573ULL};

/* ---- releases deferred out of finalizers --------------------------------- */

typedef struct deferred_s {
  int resolver;   /* 0: an ab_promise_t, 1: an ab_resolver_t */
  void *ptr;
} deferred_t;

static deferred_t *later;
static size_t nlater, caplater;

static void release_later(int resolver, void *ptr) {
  if (nlater == caplater) {
    caplater = caplater ? caplater * 2 : 256;
    later = realloc(later, caplater * sizeof(*later));
    if (later == NULL) abort();
  }
  later[nlater].resolver = resolver;
  later[nlater].ptr = ptr;
  nlater++;
}

static void run_later(void) {
  while (nlater > 0) {
    deferred_t d = later[--nlater];
    if (d.resolver)
      ab_resolver_release(d.ptr);
    else
      ab_promise_release(d.ptr);
  }
}

static void finalize_promise(napi_env env, void *data, void *hint) {
  (void)env, (void)hint;
  release_later(0, data);
}

static void finalize_resolver(napi_env env, void *data, void *hint) {
  (void)env, (void)hint;
  release_later(1, data);
}

/* ---- JS values as core values -------------------------------------------- */

static void js_retain(void *ptr) { napi_reference_ref(g_env, ptr, NULL); }

static void js_release(void *ptr) {
  uint32_t n = 0;
  napi_reference_unref(g_env, ptr, &n);
  if (n == 0) napi_delete_reference(g_env, ptr);
}

static int js_get_then(void *ptr, void **then, ab_reason_t *thrown);
static void js_call_then(void *ptr, void *then, ab_resolver_t *r);

static void schedule(napi_env env);

static const ab_type_t js_type = {"js", js_retain, js_release, js_get_then, js_call_then};

/* Boxes v: one reference, owned by the caller. */
static void *box(napi_env env, napi_value v) {
  napi_value holder;
  napi_ref ref = NULL;
  napi_create_object(env, &holder);
  napi_set_named_property(env, holder, "v", v);
  napi_create_reference(env, holder, 1, &ref);
  return ref;
}

static napi_value unbox(napi_env env, void *ptr) {
  napi_value holder, v;
  napi_get_reference_value(env, ptr, &holder);
  napi_get_named_property(env, holder, "v", &v);
  return v;
}

static ab_promise_t *as_promise(napi_env env, napi_value v) {
  napi_valuetype t;
  bool tagged = false;
  void *p = NULL;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_object) return NULL;
  if (napi_check_object_type_tag(env, v, &promise_tag, &tagged) != napi_ok || !tagged)
    return NULL;
  napi_unwrap(env, v, &p);
  return p;
}

/* Resolves p with JS value v (the A+ resolution procedure runs in the core). */
static void resolve_with(napi_env env, ab_promise_t *p, napi_value v) {
  ab_promise_t *x = as_promise(env, v);
  if (x != NULL)
    ab_promise_resolve_promise(p, x);
  else
    ab_promise_resolve(p, box(env, v), &js_type);
}

/* A reason carrying the JS value v. */
static ab_reason_t reason_of(napi_env env, napi_value v) {
  return (ab_reason_t){AB_ETHROWN, "a JavaScript value", box(env, v), &js_type};
}

/* The JS value of a rejection: its payload, or a TypeError/Error the core
 * made (a self-resolution, an aggregate). */
static napi_value reason_value(napi_env env, ab_promise_t *p) {
  ab_reason_t why = ab_promise_reason(p);
  napi_value v, msg;
  if (why.type == &js_type) return unbox(env, why.ptr);
  napi_create_string_utf8(env, why.message, NAPI_AUTO_LENGTH, &msg);
  if (why.code == AB_ETYPE)
    napi_create_type_error(env, NULL, msg, &v);
  else
    napi_create_error(env, NULL, msg, &v);
  return v;
}

static napi_value value_of(napi_env env, ab_promise_t *p) {
  napi_value v;
  if (ab_promise_value_type(p) == &js_type) return unbox(env, ab_promise_value(p));
  napi_get_undefined(env, &v);
  return v;
}

/* Takes the pending exception; NULL when none. */
static napi_value take_exception(napi_env env) {
  bool pending = false;
  napi_value e = NULL;
  napi_is_exception_pending(env, &pending);
  if (pending) napi_get_and_clear_last_exception(env, &e);
  return e;
}

static int js_get_then(void *ptr, void **then, ab_reason_t *thrown) {
  napi_env env = g_env;
  napi_value x = unbox(env, ptr), fn, e;
  napi_valuetype t;
  napi_typeof(env, x, &t);
  if (t != napi_object && t != napi_function) return 0;
  napi_get_named_property(env, x, "then", &fn);
  if ((e = take_exception(env)) != NULL) {
    *thrown = reason_of(env, e);
    return -1;
  }
  napi_typeof(env, fn, &t);
  if (t != napi_function) return 0;
  *then = box(env, fn);
  return 1;
}

static napi_value resolver_call(napi_env env, napi_callback_info info, int reject) {
  size_t argc = 1;
  napi_value argv[1], undefined;
  void *data;
  g_env = env;
  napi_get_undefined(env, &undefined);
  argv[0] = undefined;
  napi_get_cb_info(env, info, &argc, argv, NULL, &data);
  ab_resolver_t *r = data;
  if (reject) {
    ab_resolver_reject(r, reason_of(env, argv[0]));
  } else {
    ab_promise_t *x = as_promise(env, argv[0]);
    if (x != NULL)
      ab_resolver_resolve(r, ab_promise_retain(x), &ab_promise_type);
    else
      ab_resolver_resolve(r, box(env, argv[0]), &js_type);
  }
  schedule(env);
  return undefined;
}

static napi_value resolve_promise_fn(napi_env env, napi_callback_info info) {
  return resolver_call(env, info, 0);
}

static napi_value reject_promise_fn(napi_env env, napi_callback_info info) {
  return resolver_call(env, info, 1);
}

static void js_call_then(void *ptr, void *then, ab_resolver_t *r) {
  napi_env env = g_env;
  napi_value x = unbox(env, ptr), fn = unbox(env, then), argv[2], result, e;
  napi_create_function(env, "resolvePromise", NAPI_AUTO_LENGTH, resolve_promise_fn, r, &argv[0]);
  napi_create_function(env, "rejectPromise", NAPI_AUTO_LENGTH, reject_promise_fn, r, &argv[1]);
  napi_add_finalizer(env, argv[0], ab_resolver_retain(r), finalize_resolver, NULL, NULL);
  napi_add_finalizer(env, argv[1], ab_resolver_retain(r), finalize_resolver, NULL, NULL);
  napi_call_function(env, x, fn, 2, argv, &result);
  if ((e = take_exception(env)) != NULL) ab_resolver_reject(r, reason_of(env, e));
  js_release(then);
  ab_resolver_release(r);
}

/* ---- scheduling the drain ------------------------------------------------ */

static void schedule(napi_env env) {
  napi_value fn, global, result;
  if (g_scheduled || ab_microtasks_pending() == 0) return;
  g_scheduled = 1;
  napi_get_reference_value(env, g_scheduler, &fn);
  napi_get_global(env, &global);
  napi_call_function(env, global, fn, 0, NULL, &result);
}

static napi_value drain(napi_env env, napi_callback_info info) {
  (void)info;
  g_env = env;
  ab_microtasks_drain();
  run_later();
  g_scheduled = 0;
  schedule(env);
  return NULL;
}

static void ignore_unhandled(void *arg, ab_promise_t *p) {
  (void)arg, (void)p;  /* the suite rejects many promises nobody handles */
}

static napi_value init_fn(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  g_env = env;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  CHECK(napi_create_reference(env, argv[0], 1, &g_scheduler));
  ab_promise_on_unhandled(ignore_unhandled, NULL);
  return NULL;
}

/* ---- promise objects ----------------------------------------------------- */

/* Wraps p (taking over one reference) in a tagged CPromise object. */
static napi_value wrap(napi_env env, ab_promise_t *p) {
  napi_value cons, obj;
  CHECK(napi_get_reference_value(env, g_constructor, &cons));
  CHECK(napi_new_instance(env, cons, 0, NULL, &obj));
  CHECK(napi_wrap(env, obj, p, finalize_promise, NULL, NULL));
  CHECK(napi_type_tag_object(env, obj, &promise_tag));
  return obj;
}

/* The JS handlers of one then() call; exactly one side runs, once. */
typedef struct handlers_s {
  napi_ref on[2];  /* fulfilled, rejected; NULL when not a function */
} handlers_t;

static void run_handler(void *arg, ab_promise_t *settled, ab_promise_t *out) {
  napi_env env = g_env;
  handlers_t *h = arg;
  int rejected = ab_promise_state(settled) == AB_REJECTED;
  napi_ref ref = h->on[rejected];
  napi_value in = rejected ? reason_value(env, settled) : value_of(env, settled);
  if (ref == NULL) {  /* 2.2.7.3/4: pass the value or the reason on */
    if (rejected) ab_promise_reject_reason(out, reason_of(env, in));
    else resolve_with(env, out, in);
  } else {
    napi_value fn, undefined, result, e;
    napi_get_reference_value(env, ref, &fn);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, fn, 1, &in, &result);
    if ((e = take_exception(env)) != NULL)
      ab_promise_reject_reason(out, reason_of(env, e));
    else
      resolve_with(env, out, result);
  }
  for (int i = 0; i < 2; i++)
    if (h->on[i]) napi_delete_reference(env, h->on[i]);
  free(h);
}

static napi_value then_fn(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  void *p = NULL;
  g_env = env;
  napi_get_undefined(env, &argv[0]);
  argv[1] = argv[0];
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  CHECK(napi_unwrap(env, self, &p));
  handlers_t *h = calloc(1, sizeof(*h));
  int any = 0;
  for (int i = 0; i < 2; i++) {
    napi_valuetype t;
    napi_typeof(env, argv[i], &t);
    if (t == napi_function) {
      napi_create_reference(env, argv[i], 1, &h->on[i]);
      any = 1;
    }
  }
  ab_promise_t *d;
  if (any) {
    d = ab_promise_then(p, run_handler, run_handler, h);
  } else {
    free(h);
    d = ab_promise_then(p, NULL, NULL, NULL);
  }
  napi_value obj = wrap(env, d);
  schedule(env);
  return obj;
}

static napi_value construct(napi_env env, napi_callback_info info) {
  napi_value self;
  napi_get_cb_info(env, info, NULL, NULL, &self, NULL);
  return self;
}

/* ---- the adapter --------------------------------------------------------- */

/* adapter.resolved(x) and adapter.rejected(r): a new promise settled with the
 * first argument (undefined when absent). */
static napi_value settled_fn(napi_env env, napi_callback_info info, int reject) {
  size_t argc = 1;
  napi_value argv[1];
  g_env = env;
  napi_get_undefined(env, &argv[0]);
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  ab_promise_t *p = ab_promise_new();
  if (reject)
    ab_promise_reject_reason(p, reason_of(env, argv[0]));
  else
    resolve_with(env, p, argv[0]);
  napi_value obj = wrap(env, p);
  schedule(env);
  return obj;
}

static napi_value resolved_fn(napi_env env, napi_callback_info info) {
  return settled_fn(env, info, 0);
}

static napi_value rejected_fn(napi_env env, napi_callback_info info) {
  return settled_fn(env, info, 1);
}

static napi_value settle_fn(napi_env env, napi_callback_info info, int reject) {
  size_t argc = 1;
  napi_value argv[1];
  void *data;
  g_env = env;
  napi_get_undefined(env, &argv[0]);
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, &data));
  if (reject)
    ab_promise_reject_reason(data, reason_of(env, argv[0]));
  else
    resolve_with(env, data, argv[0]);
  schedule(env);
  return NULL;
}

static napi_value deferred_resolve(napi_env env, napi_callback_info info) {
  return settle_fn(env, info, 0);
}

static napi_value deferred_reject(napi_env env, napi_callback_info info) {
  return settle_fn(env, info, 1);
}

static napi_value deferred_fn(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value obj, resolve, reject;
  g_env = env;
  ab_promise_t *p = ab_promise_new();
  CHECK(napi_create_object(env, &obj));
  CHECK(napi_create_function(env, "resolve", NAPI_AUTO_LENGTH, deferred_resolve, p, &resolve));
  CHECK(napi_create_function(env, "reject", NAPI_AUTO_LENGTH, deferred_reject, p, &reject));
  CHECK(napi_add_finalizer(env, resolve, ab_promise_retain(p), finalize_promise, NULL, NULL));
  CHECK(napi_add_finalizer(env, reject, ab_promise_retain(p), finalize_promise, NULL, NULL));
  CHECK(napi_set_named_property(env, obj, "promise", wrap(env, p)));
  CHECK(napi_set_named_property(env, obj, "resolve", resolve));
  CHECK(napi_set_named_property(env, obj, "reject", reject));
  return obj;
}

static napi_value module_init(napi_env env, napi_value exports) {
  napi_value cons;
  napi_property_descriptor then_desc = {"then", NULL, then_fn, NULL, NULL, NULL,
                                        napi_default_method, NULL};
  g_env = env;
  CHECK(napi_define_class(env, "CPromise", NAPI_AUTO_LENGTH, construct, NULL, 1,
                          &then_desc, &cons));
  CHECK(napi_create_reference(env, cons, 1, &g_constructor));
  napi_property_descriptor props[] = {
    {"init", NULL, init_fn, NULL, NULL, NULL, napi_default, NULL},
    {"drain", NULL, drain, NULL, NULL, NULL, napi_default, NULL},
    {"resolved", NULL, resolved_fn, NULL, NULL, NULL, napi_default, NULL},
    {"rejected", NULL, rejected_fn, NULL, NULL, NULL, napi_default, NULL},
    {"deferred", NULL, deferred_fn, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props));
  return exports;
}

#ifndef NODE_GYP_MODULE_NAME
#define NODE_GYP_MODULE_NAME aplus
#endif
NAPI_MODULE(NODE_GYP_MODULE_NAME, module_init)
