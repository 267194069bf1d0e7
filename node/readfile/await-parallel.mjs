// await-parallel -- an async function starts N reads, awaits Promise.all
// and verifies every result (seed 000's parallel async/await test).
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

/** The style on any promise-returning reader (readFile(path), resolving to bytes). */
export function awaitAll(readFile) {
  return async function run(pass) {
    pass.begin();
    const reads = [];
    for (let i = 0; i < pass.n; i++) reads.push(readFile(pass.file));
    let all;
    try {
      all = await Promise.all(reads);
    } catch (err) {
      pass.check(null, err);
      return;
    }
    for (let i = 0; i < all.length; i++) pass.check(i, null, all[i]);
  };
}

export const variant = {
  workload: readfile, style: 'await', mode: 'parallel', backend: 'fs.promises',
  joinsAll: true, // one Promise.all over all N (contract.mjs: PROMISE_ALL_MAX)
  run: awaitAll(fsp.readFile),
};

main(variant, import.meta.url);
