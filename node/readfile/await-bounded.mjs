// await-bounded -- every read goes through a limiter (lib/limit.mjs) that
// lets at most K run at once; an async function per read awaits its turn and
// its data, and the run awaits them all.  This is how bounded concurrency is
// usually written with async/await, a queued promise per read included: N
// async functions exist and wait at once.  C's await-bounded is instead K
// coroutines over a shared counter; await-workers-bounded.mjs is that shape.
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';
import { limiter } from '../lib/limit.mjs';

export const variant = {
  workload: readfile, style: 'await', mode: 'bounded', backend: 'fs.promises',
  joinsAll: true, // one Promise.all over all N (contract.mjs: PROMISE_ALL_MAX)
  async run(pass) {
    const limit = limiter(pass.concurrency);
    const readOne = async (i) => {
      let data;
      try {
        data = await limit(() => fsp.readFile(pass.file));
      } catch (err) {
        pass.check(i, err);
        return;
      }
      pass.check(i, null, data);
    };
    pass.begin();
    const reads = [];
    for (let i = 0; i < pass.n; i++) reads.push(readOne(i));
    await Promise.all(reads);
  },
};

main(variant, import.meta.url);
