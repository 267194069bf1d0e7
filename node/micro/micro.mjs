// micro.mjs -- the operations of the C micro-benchmarks (c/micro/) in V8, so that
// runner/tools/micro.py can print them side by side.
//
// Usage: node node/micro/micro.mjs [N] [--tsv]   (N operations per pass, default
// 1,000,000).  Each figure: one untimed pass, then ROUNDS timed passes; the
// median ns per operation by the wall clock (process.hrtime) and by a CPU
// clock.  The CPU clock is the JavaScript thread's own (CLOCK_THREAD_CPUTIME_ID
// through the addon node/micro/threadcpu.c, whose path MICRO_THREADCPU names)
// when it loads, else process.cpuUsage(), which is the whole process's (V8's
// compiler and GC threads included): the fourth column says which ("thread" or
// "process").  With --tsv each figure is one line: id TAB wall ns TAB cpu ns
// TAB clock, and nothing else goes to stdout.
//
//   promise.step_batched   new Promise + .then(step) + resolve, the reactions
//                          run in bursts of 256 (one `await null` per burst)
//   promise.resolved_then  Promise.resolve(x).then(step), bursts of 256
//   promise.chain_link     one link of a chain of N .then()s, head resolved last
//   await.settled          `await p` of an already fulfilled p in an async function
//   async.empty            call an async function that returns at once
//   microtask              queueMicrotask(f) N times, then they run
//   nexttick               process.nextTick(f) N times, then they run
import { createRequire } from 'module';

const ROUNDS = 7;
const BURST = 256;

function usage() {
  process.stderr.write('usage: micro.mjs [N] [--tsv]   (N >= 1 operations per pass)\n');
  process.exit(2);
}

let n = 1000000;
let tsv = false;
let haveN = false;
for (const a of process.argv.slice(2)) {
  if (a === '--tsv') tsv = true;
  else if (/^[0-9]+$/.test(a) && !haveN && Number(a) >= 1 && Number(a) <= 1e9) {
    n = Number(a);
    haveN = true;
  } else usage();
}

let cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
let clock = 'process';
if (process.env.MICRO_THREADCPU) {
  try {
    const addon = createRequire(import.meta.url)(process.env.MICRO_THREADCPU);
    addon.threadCpuNs();
    cpuNs = addon.threadCpuNs;
    clock = 'thread';
  } catch (e) {
    process.stderr.write(`micro.mjs: ${process.env.MICRO_THREADCPU}: ${String(e.message).split('\n')[0]}; process CPU instead\n`);
  }
}

let reactions = 0;
const step = () => { reactions++; };
const count = () => { reactions++; };

async function stepBatched(m) {
  for (let done = 0; done < m; done += BURST) {
    const k = Math.min(BURST, m - done);
    for (let i = 0; i < k; i++) {
      let resolve;
      const p = new Promise((r) => { resolve = r; });
      p.then(step);
      resolve(i);
    }
    await null;
  }
}

async function resolvedThen(m) {
  for (let done = 0; done < m; done += BURST) {
    const k = Math.min(BURST, m - done);
    for (let i = 0; i < k; i++) Promise.resolve(i).then(step);
    await null;
  }
}

async function chainLink(m) {
  let resolve;
  const head = new Promise((r) => { resolve = r; });
  let p = head;
  for (let i = 0; i < m; i++) p = p.then(step);
  resolve(1);
  await p;
}

async function awaitSettled(m) {
  const p = Promise.resolve(1);
  for (let i = 0; i < m; i++) {
    await p;
    reactions++;
  }
}

async function emptyAsync() {
  reactions++;
}

async function asyncEmpty(m) {
  for (let i = 0; i < m; i++) emptyAsync();
  await null;
}

async function microtask(m) {
  for (let i = 0; i < m; i++) queueMicrotask(count);
  await null;
}

async function nexttick(m) {
  for (let i = 0; i < m; i++) process.nextTick(count);
  await new Promise((r) => process.nextTick(r));
}

const BENCHES = [
  ['promise.step_batched', 'new Promise + then + resolve + reaction, batched', stepBatched],
  ['promise.resolved_then', 'Promise.resolve(x).then(step), batched', resolvedThen],
  ['promise.chain_link', 'then chain link', chainLink],
  ['await.settled', 'await of a settled promise', awaitSettled],
  ['async.empty', 'async function returning at once', asyncEmpty],
  ['microtask', 'queueMicrotask + run', microtask],
  ['nexttick', 'process.nextTick + run', nexttick],
];

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  if (!tsv) {
    console.log(`node micro-benchmark: N = ${n}, median of ${ROUNDS} passes, CPU clock: ${clock}`);
  }
  for (const [id, name, fn] of BENCHES) {
    const before = reactions;
    const wall = [];
    const cpu = [];
    await fn(n);
    for (let r = 0; r < ROUNDS; r++) {
      const w0 = process.hrtime.bigint();
      const c0 = cpuNs();
      await fn(n);
      const c1 = cpuNs();
      const w1 = process.hrtime.bigint();
      wall.push(Number(w1 - w0) / n);
      cpu.push((c1 - c0) / n);
    }
    if (reactions - before !== (ROUNDS + 1) * n) {
      process.stderr.write(`micro.mjs: ${id} ran ${reactions - before} reactions, expected ${(ROUNDS + 1) * n}\n`);
      process.exit(1);
    }
    if (tsv) console.log(`${id}\t${median(wall).toFixed(3)}\t${median(cpu).toFixed(3)}\t${clock}`);
    else console.log(`  ${name.padEnd(50)} ${median(wall).toFixed(2).padStart(7)} ns  (${clock} CPU time: ${median(cpu).toFixed(2)} ns)`);
  }
}

main();
