/*
 * threadcpu.c -- a Node-API addon with one function, threadCpuNs(): the CPU
 * time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID), as a
 * Number.  process.cpuUsage() is the whole process's (V8's compiler and GC
 * threads, libuv's threadpool); node/micro/micro.mjs uses this instead so that
 * its figures are the JavaScript thread's own, like the C micro-benchmarks'.
 * Built by runner/tools/micro.py with `cc -shared` against Node's headers.
 */
#include <node_api.h>
#include <time.h>

static napi_value thread_cpu_ns(napi_env env, napi_callback_info info) {
  (void)info;
  struct timespec ts;
  napi_value out;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
    napi_throw_error(env, NULL, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    return NULL;
  }
  napi_create_double(env, (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec, &out);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "threadCpuNs", NAPI_AUTO_LENGTH, thread_cpu_ns, NULL, &fn);
  napi_set_named_property(env, exports, "threadCpuNs", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
