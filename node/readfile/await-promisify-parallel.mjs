// await-promisify-parallel -- await-parallel on the callback backend: the
// reads are util.promisify(fs.readFile), so the only difference from
// callback-parallel is the promise and await machinery, and the only
// difference from await-parallel is fs.promises.readFile's own work.  It
// splits seed 000's parallel gap into a style part and a backend part.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { main } from '../lib/contract.mjs';

const readFile = promisify(fs.readFile);

export const variant = {
  name: 'await-promisify-parallel', style: 'await', mode: 'parallel', backend: 'util.promisify(fs.readFile)',
  async run(pass) {
    const reads = [];
    for (let i = 0; i < pass.n; i++) reads.push(readFile(pass.file, 'utf-8'));
    let all;
    try {
      all = await Promise.all(reads);
    } catch (err) {
      pass.check(null, err);
      return;
    }
    for (let i = 0; i < all.length; i++) pass.check(i, null, all[i]);
  },
};

main(variant, import.meta.url);
