# cmocka-counts.awk -- reads a cmocka test binary's output and prints
# "PASSED FAILED SKIPPED QEMU": each test counted once, by its own line
# (cmocka's closing summary, after "[==========] N test(s) run.", lists the
# skipped and failed ones again).  A test that failed by qemu-user 7's bug (a
# forked child of a process whose threads are alive cannot start a thread:
# qemu asserts in qemu_plugin_vcpu_init_hook) counts as skipped, in QEMU too,
# and its name goes to stderr as "qemu-bug: NAME".  run-ctests.sh and
# test-aarch64.sh use it.
/^\[==========\] Running / { summary = 0; next }
/^\[==========\] [0-9]+ test\(s\) run/ { summary = 1; next }
summary { next }
/^\[ RUN      \]/ { qemu_bug = 0; next }
/qemu_plugin_vcpu_init_hook: assertion failed/ { qemu_bug = 1 }
/^\[       OK \]/ { ok++; next }
/^\[  SKIPPED \] [^0-9]/ { skip++; next }
/^\[  FAILED  \] [^0-9]/ {
  if (qemu_bug) { skip++; qemu++; print "qemu-bug: " $4 > "/dev/stderr" } else bad++; next }
END { print ok + 0, bad + 0, skip + 0, qemu + 0 }
