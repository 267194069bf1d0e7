/*
 * main.c -- the cacheloop driver, build/bin/c-cacheloop: N loads of a file
 * through a cache in one style, every load verified, one JSON line.
 */
#include "workload.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_cacheloop);
}
