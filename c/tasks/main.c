/*
 * main.c -- the tasks driver, build/bin/c-tasks: N tasks suspended at once
 * on a sleep, in one style, each verified, one JSON line.
 */
#include "workload.h"

int main(int argc, char **argv) {
  return ab_main(argc, argv, &ab_tasks);
}
