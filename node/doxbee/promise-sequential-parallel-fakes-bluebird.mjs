// promise-sequential-parallel on fakes.bluebird -- seed 003's
// doxbee-sequential promises-bluebird program: bluebird's fake database lifted
// by Promise.promisify, the put and the lookup joined by Promise.join, the
// commit not waited for (lib/fakes.mjs); all N uploads at once.
import { main } from '../lib/contract.mjs';
import { Bluebird } from './lib/bluebird.mjs';
import { runSeedUploads, thenSequential } from './lib/fakes.mjs';
import { doxbee } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'sequential', mode: 'parallel', backend: 'fakes.bluebird',
  run(pass, done) {
    runSeedUploads(pass, done, false, (fake) => Bluebird.promisify(fake),
      thenSequential((a, b, fn) => Bluebird.join(a, b, fn)));
  },
};

main(variant, import.meta.url);
