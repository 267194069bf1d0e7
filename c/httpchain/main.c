/*
 * main.c -- the httpchain client driver, build/bin/c-httpchain: N chains of
 * three GETs against the server on --port, in one style and mode, one JSON
 * line.
 */
#include "httpchain.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_httpchain);
}
