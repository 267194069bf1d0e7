// await-parallel -- an async function per task awaiting a promisified
// setTimeout (util.promisify; setImmediate when T = 0), all joined by
// Promise.all, as P. Kołaczkowski's 2023 Node program does.
import { promisify } from 'util';
import { main } from '../lib/contract.mjs';
import { tasks } from './workload.mjs';

export const variant = {
  workload: tasks, style: 'await', mode: 'parallel', backend: 'setTimeout',
  joinsAll: true, // one Promise.all over all N (contract.mjs: PROMISE_ALL_MAX)
  async run(pass) {
    const sleep = pass.sleepMs > 0 ? promisify(setTimeout) : promisify(setImmediate);
    const ms = pass.sleepMs;
    async function task(i) {
      await sleep(ms);
      return i;
    }
    pass.begin();
    const all = new Array(pass.n);
    for (let i = 0; i < pass.n; i++) all[i] = task(i);
    pass.startNs = Number(process.hrtime.bigint() - pass.t0);
    const values = await Promise.all(all);
    for (let i = 0; i < values.length; i++) pass.check(i, null, values[i]);
  },
};

main(variant, import.meta.url);
