/*
 * read_files.h -- the files the readfile tests read (test_readfile.c,
 * test_backends.c), made in a folder of their own under /tmp: "Hello, world"
 * (12 bytes), 1000 bytes (beyond the inline buffer), exactly AB_READ_INLINE
 * bytes, an empty file, and the name of one that does not exist.  Include
 * after cmocka.h.
 */
#ifndef AB_READ_FILES_H
#define AB_READ_FILES_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile/readfile.h"

typedef struct files_s {
  char dir[64];
  char small[128];   /* "Hello, world" */
  char large[128];   /* 1000 bytes: beyond the inline buffer */
  char exact[128];   /* exactly AB_READ_INLINE bytes */
  char empty[128];
  char missing[128]; /* never made */
  char large_content[1000]; /* large's bytes: a to z, again and again */
} files_t;

static void write_file(const char *path, const char *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* Makes the files in a new folder /tmp/ab-test-<name>-XXXXXX: 0, or -1 when
 * the folder cannot be made. */
static int files_make(files_t *t, const char *name) {
  size_t i;
  memset(t, 0, sizeof(*t));
  snprintf(t->dir, sizeof(t->dir), "/tmp/ab-test-%s-XXXXXX", name);
  if (mkdtemp(t->dir) == NULL) return -1;
  snprintf(t->small, sizeof(t->small), "%s/small.txt", t->dir);
  snprintf(t->large, sizeof(t->large), "%s/large.txt", t->dir);
  snprintf(t->exact, sizeof(t->exact), "%s/exact.txt", t->dir);
  snprintf(t->empty, sizeof(t->empty), "%s/empty.txt", t->dir);
  snprintf(t->missing, sizeof(t->missing), "%s/missing.txt", t->dir);
  for (i = 0; i < sizeof(t->large_content); i++) t->large_content[i] = (char)('a' + i % 26);
  write_file(t->small, "Hello, world", 12);
  write_file(t->large, t->large_content, sizeof(t->large_content));
  write_file(t->exact, t->large_content, AB_READ_INLINE);
  write_file(t->empty, "", 0);
  return 0;
}

/* Removes the files and their folder (which must hold nothing else). */
static void files_remove(const files_t *t) {
  unlink(t->small);
  unlink(t->large);
  unlink(t->exact);
  unlink(t->empty);
  rmdir(t->dir);
}

#endif /* AB_READ_FILES_H */
