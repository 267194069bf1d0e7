// await-parallel-parallel on fakes.native -- seed 003's madeup-parallel
// promises-native-async-await program: an async function per upload awaiting
// Promise.all of P inserts on the fake database lifted by the hand-written
// native lifter; the commit started and not waited for (lib/fakes.mjs); all N
// uploads at once.
import { main } from '../lib/contract.mjs';
import { checkAll, nativeLifter, runSeedUploads } from './lib/fakes.mjs';
import { doxbee } from './workload.mjs';

async function upload(db, up, pass, finish) {
  const queries = new Array(pass.queries);
  for (let j = 0; j < queries.length; j++) queries[j] = db.FileVersion.insert({ index: j }).execWithin(up.tx);
  try {
    checkAll(up, await Promise.all(queries), queries.length);
    up.commitNow();
  } catch (err) {
    up.tx.rollback();
    finish(err);
    return;
  }
  finish(null);
}

export const variant = {
  workload: doxbee, style: 'await', shape: 'parallel', mode: 'parallel', backend: 'fakes.native',
  run(pass, done) { runSeedUploads(pass, done, true, nativeLifter, upload); },
};

main(variant, import.meta.url);
