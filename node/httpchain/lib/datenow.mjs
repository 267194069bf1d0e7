// lib/datenow.mjs -- times an httpchain client by seed 001's own program and
// measurement (method datenow, e.g.
// httpchain/node/await-datenow-sequential@nodeserver.close):
//
//   node node/httpchain/lib/datenow.mjs node/httpchain/<style>-sequential.mjs [its flags]
//
// The variant file names the style (callback or await) and takes the flags;
// the chains run in a child process of the seed's own program,
// node/httpchain/lib/seed001.cjs, CommonJS as the seed's was, so that it runs
// on the seed's Node 8 too: a connection per request (the close agent), the
// callback or async/await getData, one chain after another from
// process.nextTick, each chain timed on its own and the times summed after
// the --warmup chains it drops (the seed dropped 10).  elapsed_ns is that sum,
// read from the monotonic clock where the seed read Date.now(); user_us,
// sys_us, idle_rss_kb and peak_rss_kb are the child's.  One pass a process:
// --passes and --lockstep other than 1 and 0 are refused, as for the other
// whole-process methods.  Flags, exit codes and the line are the contract's.
import path from 'path';
import { fileURLToPath } from 'url';
import { EXIT_USAGE, isEntry, programName, say } from '../../lib/contract.mjs';
import { reportOrExit, runChild, wrappedOrExit, wrapperUsage } from '../../lib/wrapper.mjs';
import { httpchain } from '../workload.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROG = programName(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'seed001.cjs');
const USAGE = wrapperUsage(PROG, 'runs the chains in seed 001\'s own CommonJS program, each chain timed apart and the times summed')
  .replace('node/<workload>/', 'node/httpchain/');
const STYLES = ['callback', 'await'];

async function main() {
  const wrapped = await wrappedOrExit(PROG, USAGE, 'datenow', process.argv.slice(2));
  const { variant } = wrapped;
  if (variant.workload !== httpchain || variant.mode !== 'sequential' || !STYLES.includes(variant.style)) {
    say(`${PROG}: "${wrapped.file}" is not a sequential callback or await httpchain variant; seed 001's program has those two\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  const child = await runChild([CHILD, variant.style], wrapped.file, wrapped.opts);
  reportOrExit(PROG, wrapped, 'datenow', child, 'seed 001\'s program', {
    elapsed_ns: child.result ? child.result.elapsed_ns : 0,
  });
}

if (isEntry(import.meta.url)) main();
