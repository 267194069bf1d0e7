// await-workers-bounded -- K async functions ("workers"), each a loop that
// takes the next iteration from a shared counter, awaits its read and checks
// it, until N have been taken; the run awaits Promise.all of the K workers.
// At most K reads are in flight and only K async functions exist, as in C's
// await-bounded (K coroutines over a shared counter, c/lib/modes_await.c).
// await-bounded.mjs is the other common way: an async function per read,
// all N of them waiting on a limiter.
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

export const variant = {
  workload: readfile, style: 'await', shape: 'workers', mode: 'bounded', backend: 'fs.promises',
  async run(pass) {
    let next = 0;
    const worker = async () => {
      while (next < pass.n) {
        const i = next++;
        let data;
        try {
          data = await fsp.readFile(pass.file);
        } catch (err) {
          pass.check(i, err);
          return;
        }
        pass.check(i, null, data);
      }
    };
    pass.begin();
    const workers = [];
    for (let k = 0; k < Math.min(pass.concurrency, pass.n); k++) workers.push(worker());
    await Promise.all(workers);
  },
};

main(variant, import.meta.url);
