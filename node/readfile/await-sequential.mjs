// await-sequential -- a for loop that awaits each read before issuing the
// next (seed 000's "blocking" async/await test).
import { promises as fsp } from 'fs';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';

/** The style on any promise-returning reader (readFile(path), resolving to bytes). */
export function awaitEach(readFile) {
  return async function run(pass) {
    pass.begin();
    for (let i = 0; i < pass.n; i++) {
      let data;
      try {
        data = await readFile(pass.file);
      } catch (err) {
        pass.check(i, err);
        return;
      }
      pass.check(i, null, data);
    }
  };
}

export const variant = {
  workload: readfile, style: 'await', mode: 'sequential', backend: 'fs.promises',
  run: awaitEach(fsp.readFile),
};

main(variant, import.meta.url);
