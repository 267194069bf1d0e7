// workload.mjs -- tasks: N tasks started at once, each suspended on a sleep
// of --sleep-ms T (0: until the next turn of the loop) and then completing
// with its own number; a pass is valid when all N completed.  The line adds
// start_ns, the time from the start of the pass until the last task was
// started, which the variant leaves in pass.startNs.
import { defineWorkload } from '../lib/contract.mjs';

const MAX_SLEEP_MS = 86400000;

export const tasks = defineWorkload({
  name: 'tasks',
  unit: 'task',
  flags: {
    'sleep-ms': { value: 1000, integer: true, range: [0, MAX_SLEEP_MS], arg: 'T', about: 'every task sleeps T ms (0: until the next loop turn)' },
  },
  verifier() {
    return (i, value) => (value === i ? 0 : `the task completed with ${JSON.stringify(value)}, expected ${i}`);
  },
  fields: (pass) => ({ start_ns: pass.startNs }),
});
