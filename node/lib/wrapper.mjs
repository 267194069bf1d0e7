// wrapper.mjs -- what the seeds' own methods share: a wrapper program that
// times a variant file of any workload in a child process of its own
// (node/lib/nodetest.mjs: seed 000's `node --test`; node/lib/perfjs.mjs: seed
// 003's bluebird harness; node/httpchain/lib/datenow.mjs: seed 001's CommonJS
// program) and prints the contract's line with its method, or
// runs it in-process in a seed's own shape (node/cacheloop/lib/objkey.mjs).
//
//   node node/lib/<method>.mjs node/<workload>/<file>.mjs [the variant's flags]
//
// The wrapper checks the operand and the flags and runs the workload's setup
// before it starts the child (exit 2 or 3 as any program).  The child learns
// what to run from the environment: ASYNCSTYLES_VARIANT (the variant file's
// absolute path), ASYNCSTYLES_OPTIONS (the parsed flags as JSON) and
// ASYNCSTYLES_RESULT (a path), and writes its counts there as JSON, or
// { failure: sentence } when a completion did not verify ({ failure, exit: 3 }
// when the environment failed it: nothing listens, no answer in time).
import { spawn } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { pathToFileURL } from 'url';
import {
  EXIT_ENV, EXIT_OK, EXIT_USAGE, EXIT_VERIFY, emit, exitIfStdoutClosed, optionsOrExit, resultLine, say, usageText,
  variantFields,
} from './contract.mjs';

const OPERAND = 'node/<workload>/<file>.mjs';

/** The usage of a wrapper: what it does, in one line after the synopsis. */
export function wrapperUsage(prog, what) {
  return `usage: ${prog} ${OPERAND} [its flags]\n  ${what};\n` +
    `  \`${prog} <file> --help\` lists the variant's flags`;
}

/** The variant a file declares, or exit 2 with a line saying why not. */
async function variantOrExit(prog, usage, file, method) {
  let variant;
  try {
    if (!file.endsWith('.mjs') || !fs.statSync(file).isFile()) throw new Error('not an .mjs file');
    ({ variant } = await import(pathToFileURL(path.resolve(file)).href));
    if (!variant) throw new Error('it exports no variant');
    variantFields(variant, method);
  } catch (err) {
    say(`${prog}: unknown variant "${file}" (${err.code === 'ENOENT' ? 'no such file' : err.message})\n${usage}`);
    process.exit(EXIT_USAGE);
  }
  return variant;
}

/**
 * The operand of a wrapper and the variant its file declares, or the end of
 * the process (usage on --help, exit 2 without a variant file): { file,
 * variant, rest (the variant's flags) }.
 */
export async function variantFileOrExit(prog, usage, method, argv) {
  const [file, ...rest] = argv;
  if (file === '--help' || file === '-h') {
    emit(prog, 'usage', `${usage}\n`);
    process.exit(EXIT_OK);
  }
  if (!file || file.startsWith('-')) {
    say(`${prog}: the first argument names a variant file\n${usage}`);
    process.exit(EXIT_USAGE);
  }
  return { file, variant: await variantOrExit(prog, usage, file, method), rest };
}

/**
 * The command line of a wrapper, or the end of the process (as
 * variantFileOrExit, and the contract's exits for its flags): { file,
 * variant, opts }.
 */
export async function wrappedOrExit(prog, usage, method, argv) {
  const { file, variant, rest } = await variantFileOrExit(prog, usage, method, argv);
  const opts = optionsOrExit(prog, variant.workload, rest, file);
  // A whole-process method's time is one process's (or its child's one
  // pass): there is no second pass to time in it.
  if (opts.passes !== 1) {
    say(`${prog}: --passes must be 1 for method ${method}: it times one pass a process, got ${opts.passes}\n` +
      usageText(prog, variant.workload, file));
    process.exit(EXIT_USAGE);
  }
  if (opts.lockstep !== 0) {
    say(`${prog}: --lockstep must be 0 for method ${method}: it times one pass a process\n` +
      usageText(prog, variant.workload, file));
    process.exit(EXIT_USAGE);
  }
  exitIfStdoutClosed(prog); // nowhere to write the result: say so before anything runs
  return { file, variant, opts };
}

/**
 * Runs `node args...` with the variant's run in its environment (see the
 * module doc) and resolves to { code, signal, output (stdout and stderr),
 * result (the parsed result file, or null), elapsed (ns from the spawn to the
 * exit, a BigInt) }.  env is added to the environment.
 */
export async function runChild(args, file, opts, env = {}) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncstyles-wrapper-'));
  const resultPath = path.join(scratch, 'result.json');
  const childEnv = {
    ...process.env,
    ASYNCSTYLES_VARIANT: path.resolve(file),
    ASYNCSTYLES_OPTIONS: JSON.stringify(opts),
    ASYNCSTYLES_RESULT: resultPath,
    ...env,
  };
  let output = '';
  const t0 = process.hrtime.bigint();
  // The wrapper's own node flags too: --experimental-modules on Node 10 (DESIGN section 11).
  const child = spawn(process.execPath, process.execArgv.concat(args), { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
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
  // The scratch folder holds files only; removed file by file, as every Node
  // can (fs.rmSync is 14.14's, a recursive rmdirSync 12.10's).
  for (const name of fs.readdirSync(scratch)) fs.unlinkSync(path.join(scratch, name));
  fs.rmdirSync(scratch);
  return { code, signal, output, result, elapsed };
}

/**
 * The child's result checked (a failure it wrote, an exit other than 0, no
 * result, fewer verified operations than N: exit 1 with one line naming the
 * file and `childName`, what ran in the child) and the contract's line
 * printed for the variant timed by `method`: measured holds what the line
 * takes from the wrapper (elapsed_ns, and anything the result does not say).
 */
export function reportOrExit(prog, { file, variant, opts }, method, child, childName, measured) {
  const { code, signal, output, result } = child;
  if (result && result.failure) {
    // A child may say its failure is the environment's (exit 3: nothing
    // listens on a port, no answer in time); any other is a verification's.
    say(`${prog}: ${file}: ${result.failure}`);
    process.exit(result.exit === EXIT_ENV ? EXIT_ENV : EXIT_VERIFY);
  }
  if (code !== 0 || !result) {
    const tail = output.trim().split('\n').filter((l) => /not ok|Error|error:/.test(l)).slice(0, 1).join(' ');
    const how = result ? `${signal || code}` : `${signal || code} and no result`;
    say(`${prog}: ${file}: ${childName} exited with ${how}${tail ? `: ${tail.trim()}` : ''}`);
    process.exit(EXIT_VERIFY);
  }
  if (result.ok !== opts.iterations) {
    say(`${prog}: ${file}: verified ${result.ok} of ${opts.iterations} ${variant.workload.unit}s`);
    process.exit(EXIT_VERIFY);
  }
  emit(prog, 'result', resultLine(variantFields(variant, method), {
    iterations: opts.iterations,
    concurrency: result.concurrency,
    ok: result.ok,
    bytes: result.bytes,
    user_us: result.user_us,
    sys_us: result.sys_us,
    peak_rss_kb: result.peak_rss_kb,
    idle_rss_kb: result.idle_rss_kb,
    workloadFields: result.workloadFields || {},
    preclock: result.preclock,
    warmup_ns: result.warmup_ns,
    sampled_rss_kb: result.sampled_rss_kb,
    ...measured,
    // One pass a process: its time is the list's one entry.
    passes_elapsed_ns: [measured.elapsed_ns],
  }) + '\n');
}

/** The child's side: reports its counts (or a failure) to the wrapper. */
export function childReport(fields) {
  const resultPath = process.env.ASYNCSTYLES_RESULT;
  if (resultPath) fs.writeFileSync(resultPath, JSON.stringify(fields));
}

/** The child's side: the variant and options the wrapper handed over. */
export async function childVariant() {
  const { variant } = await import(pathToFileURL(process.env.ASYNCSTYLES_VARIANT).href);
  return { variant, opts: JSON.parse(process.env.ASYNCSTYLES_OPTIONS) };
}
