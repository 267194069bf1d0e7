/*
 * main.c -- the readfile driver, build/bin/c-readfile: read a small file N
 * times in one style and mode, verify every read, print one JSON line.
 */
#include "workload.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_readfile);
}
