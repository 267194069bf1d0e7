// nodetest.mjs -- times one variant of any workload by seed 000's method: the
// wall time of a whole `node --test` process running it.
//
//   node node/lib/nodetest.mjs node/<workload>/<file>.mjs [the variant's flags]
//
// The flags, exit codes and the JSON line are the contract's, with method
// "nodetest" (so the id reads e.g. readfile/node/await-nodetest-parallel@fs.promises).
// Flags are checked and the workload's setup (readfile: the fixture check)
// runs here, before the clock.  elapsed_ns is the time from spawning
// `node --test node/lib/nodetest-child.mjs` to its exit: process start, the
// test runner, its own child process for the test file, loading node:test
// and the variant's modules there, the warm-up and timed passes, and the
// test runner's report.  user_us, sys_us and peak_rss_kb are those of the
// test file's process over its whole life (the test runner's parent process
// is not included; Node cannot read a child's rusage).  See node/README.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  EXIT_OK, EXIT_USAGE, EXIT_VERIFY, emit, exitIfStdoutClosed, isEntry, optionsOrExit, programName, resultLine, say,
  variantFields,
} from './contract.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROG = programName(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, 'nodetest-child.mjs');
const OPERAND = 'node/<workload>/<file>.mjs';
const USAGE = `usage: ${PROG} ${OPERAND} [its flags]\n` +
  '  times the variant as one whole `node --test` process;\n' +
  `  \`${PROG} <file> --help\` lists the variant's flags`;

/** The variant a file declares, or exit 2 with a line saying why not. */
async function variantOrExit(file) {
  let variant;
  try {
    if (!file.endsWith('.mjs') || !fs.statSync(file).isFile()) throw new Error('not an .mjs file');
    ({ variant } = await import(pathToFileURL(path.resolve(file)).href));
    if (!variant) throw new Error('it exports no variant');
    variantFields(variant, 'nodetest');
  } catch (err) {
    say(`${PROG}: unknown variant "${file}" (${err.code === 'ENOENT' ? 'no such file' : err.message})\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  return variant;
}

async function main() {
  const [file, ...rest] = process.argv.slice(2);
  if (file === '--help' || file === '-h') {
    emit(PROG, 'usage', `${USAGE}\n`);
    process.exit(EXIT_OK);
  }
  if (!file || file.startsWith('-')) {
    say(`${PROG}: the first argument names a variant file\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  const variant = await variantOrExit(file);
  const opts = optionsOrExit(PROG, variant.workload, rest, file);
  exitIfStdoutClosed(PROG);

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncstyles-nodetest-'));
  const resultPath = path.join(scratch, 'result.json');
  const env = {
    ...process.env,
    ASYNCSTYLES_VARIANT: path.resolve(file),
    ASYNCSTYLES_OPTIONS: JSON.stringify(opts),
    ASYNCSTYLES_RESULT: resultPath,
  };
  // Set when this wrapper itself runs under a test runner (its unit test);
  // the node --test below must be a runner of its own, as the seed's was.
  delete env.NODE_TEST_CONTEXT;

  let output = '';
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--test', CHILD], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    say(`${PROG}: ${file}: ${result.failure}`);
    process.exit(EXIT_VERIFY);
  }
  if (code !== 0 || !result) {
    const tail = output.trim().split('\n').filter((l) => /not ok|Error|error:/.test(l)).slice(0, 1).join(' ');
    const how = result ? `${signal || code}` : `${signal || code} and no result`;
    say(`${PROG}: ${file}: node --test exited with ${how}${tail ? `: ${tail.trim()}` : ''}`);
    process.exit(EXIT_VERIFY);
  }
  if (result.ok !== opts.iterations) {
    say(`${PROG}: ${file}: verified ${result.ok} of ${opts.iterations} ${variant.workload.unit}s`);
    process.exit(EXIT_VERIFY);
  }
  emit(PROG, 'result', resultLine(variantFields(variant, 'nodetest'), {
    iterations: opts.iterations,
    concurrency: result.concurrency,
    ok: result.ok,
    bytes: result.bytes,
    elapsed_ns: Number(elapsed),
    user_us: result.user_us,
    sys_us: result.sys_us,
    peak_rss_kb: result.peak_rss_kb,
    idle_rss_kb: result.idle_rss_kb,
  }) + '\n');
}

if (isEntry(import.meta.url)) main();
