/*
 * backends.c -- the backend table and what all backends share.
 * Adding a backend: one file implementing ab_backend_t, one line in `backends`.
 */
#include "readfile.h"

#include <stdlib.h>
#include <string.h>

static const ab_backend_t *const backends[] = {
  &ab_backend_node4,
  NULL
};

const ab_backend_t *ab_backend_find(const char *name) {
  int i;
  for (i = 0; backends[i] != NULL; i++)
    if (strcmp(backends[i]->name, name) == 0) return backends[i];
  return NULL;
}

const char *ab_backend_name(size_t k) {
  return k < sizeof(backends) / sizeof(backends[0]) - 1 ? backends[k]->name : NULL;
}

void ab_read_cleanup(ab_read_t *req) {
  free(req->heap);
  req->heap = NULL;
  req->heap_cap = 0;
}
