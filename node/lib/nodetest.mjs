// run.mjs -- times one readfile variant by seed 000's method: the wall time
// of a whole `node --test` process running node/nodetest/readfile.test.mjs.
//
//   node node/nodetest/run.mjs VARIANT [--iterations N] [--file PATH] ...
//
// VARIANT is a node/readfile program name (callback-parallel, ...).  The flags,
// exit codes and the JSON line are the contract's; the line's variant id is
// node/<style>-nodetest-<mode> (node/promise-counter-nodetest-parallel for
// promise-counter-parallel) and its elapsed_ns is the time from spawning
// `node --test` to its exit: process start, module loading, the test
// runner's own child process and reporting included.  user_us, sys_us and
// peak_rss_kb are those of the test file's process over its whole life (the
// test runner's parent process is not included; Node cannot read a child's
// rusage).  See node/README.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXIT_OK, EXIT_VERIFY, EXIT_USAGE, optionsOrExit, resultLine, say, usageText,
} from '../lib/contract.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROG = 'node/nodetest/run.mjs';
const TEST_FILE = path.join(HERE, 'readfile.test.mjs');
const READFILE_DIR = path.join(HERE, '..', 'readfile');

/** The catalog id of a variant measured by this method. */
export function nodetestId(name, mode) {
  return `node/${name.slice(0, -(mode.length + 1))}-nodetest-${mode}`;
}

async function main() {
  const [name, ...rest] = process.argv.slice(2);
  if (name === '--help' || name === '-h') {
    fs.writeSync(1, `${usageText(PROG, 'VARIANT')}\n`);
    process.exit(EXIT_OK);
  }
  const known = fs.readdirSync(READFILE_DIR).filter((f) => f.endsWith('.mjs')).map((f) => f.slice(0, -4));
  if (!name || !known.includes(name)) {
    say(`${PROG}: unknown variant "${name || ''}" (choose one of ${known.sort().join(', ')})\n` +
        usageText(PROG, 'VARIANT'));
    process.exit(EXIT_USAGE);
  }
  const opts = optionsOrExit(PROG, rest, 'VARIANT');
  const { variant } = await import(path.join(READFILE_DIR, `${name}.mjs`));

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncstyles-nodetest-'));
  const resultPath = path.join(scratch, 'result.json');
  const env = {
    ...process.env,
    ASYNCSTYLES_VARIANT: name,
    ASYNCSTYLES_ITERATIONS: String(opts.iterations),
    ASYNCSTYLES_FILE: path.resolve(opts.file),
    ASYNCSTYLES_EXPECT: opts.expect,
    ASYNCSTYLES_CONCURRENCY: String(opts.concurrency),
    ASYNCSTYLES_WARMUP: String(opts.warmup),
    ASYNCSTYLES_RESULT: resultPath,
  };

  let output = '';
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--test', TEST_FILE], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code, signal] = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (c, s) => resolve([c, s]));
  });
  const elapsed = process.hrtime.bigint() - t0;

  let result = null;
  try {
    result = JSON.parse(fs.readFileSync(resultPath, 'utf-8'));
  } catch {
    result = null;
  }
  fs.rmSync(scratch, { recursive: true, force: true });

  if (result && result.failure) {
    say(`${PROG}: ${name}: ${result.failure}`);
    process.exit(EXIT_VERIFY);
  }
  if (code !== 0 || !result) {
    const tail = output.trim().split('\n').filter((l) => /not ok|Error|error:/.test(l)).slice(0, 1).join(' ');
    say(`${PROG}: ${name}: node --test exited with ${signal || code}${tail ? `: ${tail.trim()}` : ''}`);
    process.exit(EXIT_VERIFY);
  }
  if (result.ok !== opts.iterations) {
    say(`${PROG}: ${name}: verified ${result.ok} of ${opts.iterations} reads`);
    process.exit(EXIT_VERIFY);
  }
  fs.writeSync(1, resultLine({ ...variant, id: nodetestId(name, variant.mode) }, {
    iterations: opts.iterations,
    concurrency: result.concurrency,
    ok: result.ok,
    bytes: result.bytes,
    elapsed_ns: Number(elapsed),
    user_us: result.user_us,
    sys_us: result.sys_us,
    peak_rss_kb: result.peak_rss_kb,
  }) + '\n');
}

main();
