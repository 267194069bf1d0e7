// lib/rssclock.mjs -- runs an asyncfib variant file in seed 004's own
// measurement (method rssclock, e.g. asyncfib/node/await-recursive-rssclock-sequential@none):
//
//   node node/asyncfib/lib/rssclock.mjs node/asyncfib/<file>.mjs [its flags]
//
// Seed 004 timed each repetition of fib(0..9) on its own, with the resident
// set read (process.memoryUsage.rss()) right after its clock started and
// right before it stopped, and printed the sum of 5 repetitions after
// dropping a first, JIT-cold one; each of its comparisons ran in a phase of
// its own, started 500 ms after the one before it on a timer (the recursive
// one at once, the iterative one at 500 ms, the promise one at 1000 ms).
// Here the variant's own fib runs in that measurement (workload.mjs:
// seedPass): the pass's time is the sum of its repetitions, both reads
// inside each; the dropped repetition is the warm-up (--warmup 1 in the
// catalog); and the process waits for its phase's start before its first
// pass, outside any clock.  The seed ran the plain and the async half of a
// comparison one after the other in each repetition; here each process runs
// one variant, so the other half's work is not between its repetitions.
// Flags, exit codes and the line are the contract's, with method "rssclock";
// the run goes through the contract's main in this process.
import { fileURLToPath } from 'url';
import { EXIT_USAGE, main, programName, say } from '../../lib/contract.mjs';
import { variantFileOrExit, wrapperUsage } from '../../lib/wrapper.mjs';
import { asyncfib, seedPass } from '../workload.mjs';

const PROG = programName(fileURLToPath(import.meta.url));
const USAGE = wrapperUsage(PROG, 'runs an asyncfib variant in seed 004\'s measurement: the RSS read twice inside each repetition\'s clock, the repetitions\' times summed')
  .replace('node/<workload>/', 'node/asyncfib/');

// How long after the program's start the seed began each phase.
const PHASE_MS = 500;

/** The seed's phase of a variant: the recursive comparison, the iterative one, the promise one. */
function phaseOf(variant) {
  if (variant.shape === 'recursive') return 0;
  return variant.style === 'promise' ? 2 : 1;
}

// A promise, not a top-level await (Node has that only from 14.8): DESIGN section 11.
variantFileOrExit(PROG, USAGE, 'rssclock', process.argv.slice(2)).then(({ file, variant, rest }) => {
  if (variant.workload !== asyncfib || typeof variant.fib !== 'function') {
    say(`${PROG}: "${file}" is not an asyncfib variant with its fib; seed 004's measurement is asyncfib's\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  const start = Date.now();
  let phase = null;

  main({
    ...variant,
    run(pass) {
      // The first pass (the warm-up, the seed's dropped repetition) waits for
      // the phase's start; the later ones follow at once, as in the seed.
      if (!phase) {
        const wait = Math.max(0, start + PHASE_MS * phaseOf(variant) - Date.now());
        phase = new Promise((resolve) => setTimeout(resolve, wait));
      }
      return phase.then(() => seedPass(pass, variant.shape, variant.fib, variant.style !== 'sync'));
    },
  }, import.meta.url, { method: 'rssclock', args: rest, operand: file });
});
