// promise-sequential-parallel on bluebird -- the same .then chain over bluebird's
// promises: Promise.promisify of the callback fake; all N
// uploads at once.  bluebird comes from node/node_modules (make deps).
import { main, say, EXIT_ENV } from '../lib/contract.mjs';
import { doxbee, callbackFake, runPromises } from './workload.mjs';

let Bluebird;
try {
  Bluebird = (await import('bluebird')).default;
} catch {
  say('node/doxbee: bluebird is not installed: run make deps (npm ci in node/)');
  process.exit(EXIT_ENV);
}

export const variant = {
  workload: doxbee, style: 'promise', shape: 'sequential', mode: 'parallel', backend: 'bluebird',
  run(pass, done) {
    runPromises(pass, done, false, Bluebird.promisify(callbackFake(pass.delayMs)), (ps) => Bluebird.all(ps));
  },
};

main(variant, import.meta.url);
