/*
 * readfile.c -- the backend table and what all backends share.
 * Adding a backend: one file implementing ab_backend_t, one line in `backends`.
 */
#include "readfile.h"

#include <stdlib.h>
#include <stdio.h>
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

const char *ab_backend_names(void) {
  static char names[256];
  size_t len = 0;
  int i;
  if (names[0] != '\0') return names;
  for (i = 0; backends[i] != NULL; i++) {
    int w = snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
                     backends[i]->name);
    if (w < 0 || (size_t)w >= sizeof(names) - len) break;
    len += (size_t)w;
  }
  return names;
}

void ab_read_cleanup(ab_read_t *req) {
  free(req->heap);
  req->heap = NULL;
  req->heap_cap = 0;
}
