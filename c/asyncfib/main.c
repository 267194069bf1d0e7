/*
 * main.c -- the asyncfib driver, build/bin/c-asyncfib: N top-level fibonacci
 * calls in one style and shape, every result verified, one JSON line.
 */
#include "workload.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_asyncfib);
}
