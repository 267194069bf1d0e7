// await-sequential -- seed 001's async version of getData (without its double
// callback on an error): path = await get('/a'); path = await get(path);
// path = await get(path); one chain after another in a for loop.
import { main } from '../lib/contract.mjs';
import { httpchain, backendArg, target, getPromise, FIRST } from './workload.mjs';

/** One chain as an async function: resolves to the last path. */
export async function getData(t) {
  let path = await getPromise(t, FIRST);
  path = await getPromise(t, path);
  path = await getPromise(t, path);
  return path;
}

export const variant = {
  workload: httpchain, style: 'await', mode: 'sequential', backend: backendArg(),
  async run(pass) {
    pass.begin(); // before the agent: its connections are the pass's
    const t = target(pass);
    try {
      for (let i = 0; i < pass.n; i++) {
        let last;
        try {
          last = await getData(t);
        } catch (err) {
          pass.check(i, err);
          return;
        }
        pass.check(i, null, last);
      }
    } finally {
      t.agent.destroy();
    }
  },
};

main(variant, import.meta.url);
