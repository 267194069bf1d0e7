// nodetest.mjs -- times one variant of any workload by seed 000's method: the
// wall time of a whole `node --test` process running it.
//
//   node node/lib/nodetest.mjs node/<workload>/<file>.mjs [the variant's flags]
//
// The flags, exit codes and the JSON line are the contract's, with method
// "nodetest" (so the id reads e.g. readfile/node/await-nodetest-parallel@fs.promises).
// Flags are checked and the workload's setup (readfile: the fixture check)
// runs here, before the clock (node/lib/wrapper.mjs).  elapsed_ns is the time
// from spawning `node --test node/lib/nodetest-child.mjs` to its exit:
// process start, the test runner, its own child process for the test file,
// loading node:test and the variant's modules there, the warm-up and timed
// passes, and the test runner's report.  user_us, sys_us and peak_rss_kb are
// those of the test file's process over its whole life (the test runner's
// parent process is not included; Node cannot read a child's rusage).  See
// node/README.md.
import path from 'path';
import { fileURLToPath } from 'url';
import { isEntry, programName } from './contract.mjs';
import { reportOrExit, runChild, wrappedOrExit, wrapperUsage } from './wrapper.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROG = programName(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'nodetest-child.mjs');
const USAGE = wrapperUsage(PROG, 'times the variant as one whole `node --test` process');

async function main() {
  const wrapped = await wrappedOrExit(PROG, USAGE, 'nodetest', process.argv.slice(2));
  // NODE_TEST_CONTEXT is set when this wrapper itself runs under a test
  // runner (its unit test); the node --test below must be a runner of its
  // own, as the seed's was.
  const child = await runChild(['--test', CHILD], wrapped.file, wrapped.opts, { NODE_TEST_CONTEXT: undefined });
  reportOrExit(PROG, wrapped, 'nodetest', child, 'node --test', { elapsed_ns: Number(child.elapsed) });
}

if (isEntry(import.meta.url)) main();
