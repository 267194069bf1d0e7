/*
 * protocol.c -- the paths of a chain, shared by the server and the clients.
 */
#include <string.h>

#include "httpchain.h"

const char *hc_next_path(const char *path, size_t len) {
  static const char *const table[][2] = {{"/a", "/b"}, {"/b", "/c"}, {"/c", "/d"}};
  for (size_t k = 0; k < sizeof(table) / sizeof(table[0]); k++)
    if (len == strlen(table[k][0]) && memcmp(path, table[k][0], len) == 0)
      return table[k][1];
  return NULL;
}
