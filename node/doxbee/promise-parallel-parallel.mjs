// promise-parallel-parallel -- every upload a .then chain over native promises
// (new Promise around setTimeout), its queries joined by Promise.all; all N uploads at once.
import { main } from '../lib/contract.mjs';
import { doxbee, nativePromises, runPromises } from './workload.mjs';

export const variant = {
  workload: doxbee, style: 'promise', shape: 'parallel', mode: 'parallel', backend: 'native',
  run(pass, done) {
    runPromises(pass, done, true, nativePromises(pass.delayMs));
  },
};

main(variant, import.meta.url);
