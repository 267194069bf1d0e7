/*
 * main.c -- the doxbee driver, build/bin/c-doxbee: N uploads of fake
 * database transactions started at once, in one style and shape, each
 * verified, one JSON line.
 */
#include "workload.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_doxbee);
}
