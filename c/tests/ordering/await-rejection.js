// A rejection awaited, caught, rethrown: the async function's promise rejects.
const out = [];
async function f() {
  try { await Promise.reject(new Error('E1')); } catch (e) { out.push('caught'); throw e; }
}
f().catch(() => out.push('outer-catch'));
Promise.resolve().then(() => out.push('t1')).then(() => out.push('t2')).then(() => out.push('t3'));
setTimeout(() => console.log(out.join(' ')));
