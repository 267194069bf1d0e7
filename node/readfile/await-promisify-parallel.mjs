// await-promisify-parallel -- await-parallel on the callback backend: the
// reads are util.promisify(fs.readFile), so the only difference from
// callback-parallel is the promise and await machinery, and the only
// difference from await-parallel is fs.promises.readFile's own work.  It
// splits seed 000's parallel gap into a style part and a backend part.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { main } from '../lib/contract.mjs';
import { awaitAll } from './await-parallel.mjs';

export const variant = {
  name: 'await-promisify-parallel', style: 'await', mode: 'parallel', backend: 'util.promisify(fs.readFile)',
  run: awaitAll(promisify(fs.readFile)),
};

main(variant, import.meta.url);
