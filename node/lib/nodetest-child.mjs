// readfile.test.mjs -- one readfile variant as a node:test test file, the
// way seed 000 measured its variants (`node --test <file>`).  The reads are
// the very code of node/readfile/<variant>.mjs, so the two methods differ
// only in what surrounds the reads.
//
// node/nodetest/run.mjs starts this file under `node --test` and passes the
// run through the environment: ASYNCSTYLES_VARIANT (a node/readfile name),
// ASYNCSTYLES_ITERATIONS, ASYNCSTYLES_FILE, ASYNCSTYLES_EXPECT,
// ASYNCSTYLES_CONCURRENCY, ASYNCSTYLES_WARMUP and ASYNCSTYLES_RESULT (a path).
// The test runner owns this process's stdout, so the counts go to the
// ASYNCSTYLES_RESULT file as JSON for run.mjs to check and report.
import test from 'node:test';
import assert from 'node:assert';
import fs from 'node:fs';
import { Pass, runPass, effectiveConcurrency } from '../lib/contract.mjs';

const env = process.env;
const resultPath = env.ASYNCSTYLES_RESULT;
const opts = {
  file: env.ASYNCSTYLES_FILE,
  expect: env.ASYNCSTYLES_EXPECT,
  iterations: Number(env.ASYNCSTYLES_ITERATIONS),
  warmup: Number(env.ASYNCSTYLES_WARMUP || 0),
  concurrency: Number(env.ASYNCSTYLES_CONCURRENCY || 0),
};
const { variant } = await import(`../readfile/${env.ASYNCSTYLES_VARIANT}.mjs`);
const concurrency = effectiveConcurrency(variant.mode, opts.concurrency);

function report(fields) {
  if (resultPath) fs.writeFileSync(resultPath, JSON.stringify(fields));
}

// A failed check ends the file at once, as in the suite's own programs; the
// message reaches run.mjs through the result file.
function failed(message) {
  report({ failure: message });
  process.exit(1);
}

test(`reading ${opts.file} ${opts.iterations} times: ${variant.name}`, async () => {
  if (opts.warmup > 0) await runPass(variant, new Pass(opts, opts.warmup, concurrency, failed));
  const pass = new Pass(opts, opts.iterations, concurrency, failed);
  pass.begin();
  await runPass(variant, pass);
  assert.strictEqual(pass.ok, opts.iterations);
  const cpu = process.cpuUsage(); // the whole life of this process
  report({
    ok: pass.ok,
    bytes: pass.bytes,
    concurrency,
    inner_ns: Number(pass.t1 - pass.t0),
    user_us: cpu.user,
    sys_us: cpu.system,
    peak_rss_kb: process.resourceUsage().maxRSS,
  });
});
