// await-parallel-parallel -- every upload an async function awaiting
// Promise.all of its P queries (native promises), then the commit; all N at once.
import { main } from '../lib/contract.mjs';
import { doxbee, Upload, expected, nativeFake, perUpload, startAll, FILEVERSION, COMMIT } from './workload.mjs';

async function upload(i, pass, op) {
  const up = new Upload(i, perUpload(pass, true));
  const queries = new Array(pass.queries);
  for (let j = 0; j < queries.length; j++) queries[j] = op(expected(i, FILEVERSION, j));
  const results = await Promise.all(queries);
  for (let j = 0; j < results.length; j++) up.verify(FILEVERSION, j, results[j]);
  return up.committed(await op(expected(i, COMMIT)));
}

export const variant = {
  workload: doxbee, style: 'await', shape: 'parallel', mode: 'parallel', backend: 'native',
  run(pass, done) {
    const op = nativeFake(pass.delayMs);
    startAll(pass, true, done, (i, finish) => {
      upload(i, pass, op).then((up) => finish(null, up), (err) => finish(err));
    });
  },
};

main(variant, import.meta.url);
