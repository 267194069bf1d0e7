// await-sequential-parallel -- every upload an async function awaiting the put
// and the lookup together (Promise.all), then each operation (native
// promises) in turn, the commit too; all N at once.
import { main } from '../lib/contract.mjs';
import {
  doxbee, Upload, createQuery, expected, nativeFake, startAll,
  PUT, LOOKUP, VERSION, CREATE, EXEC, FILEVERSION, UPDATE, COMMIT, STEPS,
} from './workload.mjs';

async function upload(i, op) {
  const up = new Upload(i, STEPS);
  const [blobId, file] = await Promise.all([op(expected(i, PUT)), op(expected(i, LOOKUP))]);
  up.verify(PUT, 0, blobId);
  up.verify(LOOKUP, 0, file);
  up.verify(VERSION, 0, await op(expected(i, VERSION)));
  if (file) throw new Error('the lookup found a file: the create branch did not run');
  let query;
  createQuery(i, (err, q) => { query = q; });
  up.verify(CREATE, 0, query);
  up.verify(EXEC, 0, await op(expected(i, EXEC)));
  up.verify(FILEVERSION, 0, await op(expected(i, FILEVERSION)));
  up.verify(UPDATE, 0, await op(expected(i, UPDATE)));
  return up.committed(await op(expected(i, COMMIT)));
}

export const variant = {
  workload: doxbee, style: 'await', shape: 'sequential', mode: 'parallel', backend: 'native',
  run(pass, done) {
    const op = nativeFake(pass.delayMs);
    startAll(pass, false, done, (i, finish) => {
      upload(i, op).then((up) => finish(null, up), (err) => finish(err));
    });
  },
};

main(variant, import.meta.url);
