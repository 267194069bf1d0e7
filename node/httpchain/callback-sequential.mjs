// callback-sequential -- seed 001's callback version: each GET is started from
// the previous one's callback, three to a chain; the next chain starts from
// the last callback of the one before (one chain in flight).
import { main } from '../lib/contract.mjs';
import { httpchain, backendArg, target, get, FIRST } from './workload.mjs';

/** One chain: /a, then its body, then that body's; cb(err, last path). */
export function chain(t, cb) {
  get(t, FIRST, (err, path1) => {
    if (err) return cb(err);
    get(t, path1, (err, path2) => {
      if (err) return cb(err);
      get(t, path2, (err, path3) => {
        if (err) return cb(err);
        cb(null, path3);
      });
    });
  });
}

export const variant = {
  workload: httpchain, style: 'callback', mode: 'sequential', backend: backendArg(),
  run(pass, done) {
    pass.begin(); // before the agent: its connections are the pass's
    const t = target(pass);
    const step = (i) => {
      chain(t, (err, last) => {
        pass.check(i, err, last);
        if (i + 1 === pass.n) {
          t.agent.destroy();
          done();
        } else step(i + 1);
      });
    };
    step(0);
  },
};

main(variant, import.meta.url);
