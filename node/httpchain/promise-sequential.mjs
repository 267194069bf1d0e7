// promise-sequential -- the promise version of makeRequest chained with
// .then: get('/a').then(get).then(get), the next chain from the last .then.
import { main } from '../lib/contract.mjs';
import { httpchain, backendArg, target, getPromise, FIRST } from './workload.mjs';

export const variant = {
  workload: httpchain, style: 'promise', mode: 'sequential', backend: backendArg(),
  run(pass) {
    pass.begin(); // before the agent: its connections are the pass's
    const t = target(pass);
    const get = (path) => getPromise(t, path);
    const step = (i) => get(FIRST).then(get).then(get).then(
      (last) => {
        pass.check(i, null, last);
        return i + 1 === pass.n ? undefined : step(i + 1);
      },
      (err) => { pass.check(i, err); });
    return step(0).finally(() => t.agent.destroy());
  },
};

main(variant, import.meta.url);
