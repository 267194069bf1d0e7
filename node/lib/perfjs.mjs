// perfjs.mjs -- times one variant of any workload by seed 003's method: what
// bluebird's benchmark/performance.js measures (petkaantonov/bluebird), its
// harness reimplemented around the variant file's own run().
//
//   node node/lib/perfjs.mjs node/<workload>/<file>.mjs [the variant's flags]
//
// The flags, exit codes and the JSON line are the contract's, with method
// "perfjs" (doxbee/node/promise-parallel-perfjs-parallel@native).  As the
// harness does, each implementation runs in a child process of its own
// (node/lib/perfjs-child.mjs), which:
//
//   - warms up with --warmup W uploads started at once (the runner passes the
//     harness's min(350, N)), and starts the timed pass from inside the last
//     warm-up completion;
//   - reads the RSS at the start, starts all N operations in one synchronous
//     loop (the variant's own run), reads the RSS after that loop and again at
//     every completion, inside the clock, with process.memoryUsage() as the
//     harness does;
//   - times from just before that loop to the last completion.
//
// elapsed_ns is that time.  The harness reads Date.now() at the same two
// points (whole milliseconds); the child reads the monotonic clock there.
// idle_rss_kb is the RSS read at the start; peak_rss_kb the child's peak RSS
// (the kernel's); sampled_rss_kb the harness's own memory figure, the largest
// RSS sampled (after the loop and at every completion) less the RSS at the
// start, in KiB, which peak - idle bounds from above (the child checks that no
// sample exceeds the peak).  user_us and sys_us are the child's CPU over the timed
// pass.  Every completion is still verified by the contract's Pass, as in the
// suite's method: the two methods run the same code.
import path from 'path';
import { fileURLToPath } from 'url';
import { isEntry, programName } from './contract.mjs';
import { reportOrExit, runChild, wrappedOrExit, wrapperUsage } from './wrapper.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROG = programName(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'perfjs-child.mjs');
const USAGE = wrapperUsage(PROG, 'times the variant as bluebird\'s benchmark/performance.js does, in a child process');

async function main() {
  const wrapped = await wrappedOrExit(PROG, USAGE, 'perfjs', process.argv.slice(2));
  const child = await runChild([CHILD], wrapped.file, wrapped.opts);
  reportOrExit(PROG, wrapped, 'perfjs', child, 'the harness\'s child', {
    elapsed_ns: child.result ? child.result.elapsed_ns : 0,
  });
}

if (isEntry(import.meta.url)) main();
