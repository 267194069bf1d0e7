/*
 * main.c -- the noop driver, build/bin/c-noop: N operations that do nothing,
 * in one style and mode, each verified, one JSON line.
 */
#include "workload.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_noop);
}
