// await-sequential -- seed 001's async version of getData (without its double
// callback on an error): path = await get('/a'); path = await get(path);
// path = await get(path); one chain after another in a for loop.
import { main } from '../lib/contract.mjs';
import { httpchain, backendArg, agentFor, getPromise, FIRST } from './workload.mjs';

/** One chain as an async function: resolves to the last path. */
export async function getData(agent, port) {
  let path = await getPromise(agent, port, FIRST);
  path = await getPromise(agent, port, path);
  path = await getPromise(agent, port, path);
  return path;
}

export const variant = {
  workload: httpchain, style: 'await', mode: 'sequential', backend: backendArg(),
  async run(pass) {
    const agent = agentFor(pass);
    const port = Number(pass.port);
    try {
      for (let i = 0; i < pass.n; i++) {
        let last;
        try {
          last = await getData(agent, port);
        } catch (err) {
          pass.check(i, err);
          return;
        }
        pass.check(i, null, last);
      }
    } finally {
      agent.destroy();
    }
  },
};

main(variant, import.meta.url);
