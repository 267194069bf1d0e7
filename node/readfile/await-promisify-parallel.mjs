// await-promisify-parallel -- readfile/node/await-parallel@promisify:
// await-parallel on the callback API's reader, util.promisify(fs.readFile),
// so the only difference from callback-parallel is the promise and await
// machinery, and the only difference from await-parallel is
// fs.promises.readFile's own work.  It splits seed 000's parallel gap into a
// style part and a backend part.
import fs from 'fs';
import { promisify } from 'util';
import { main } from '../lib/contract.mjs';
import { readfile } from './workload.mjs';
import { awaitAll } from './await-parallel.mjs';

export const variant = {
  workload: readfile, style: 'await', mode: 'parallel', backend: 'promisify',
  run: awaitAll(promisify(fs.readFile)),
};

main(variant, import.meta.url);
