// An async function awaiting another that awaits (nested coroutines in C).
const out = [];
async function inner() { out.push('i1'); await null; out.push('i2'); return 'x'; }
async function outer() { out.push('o1'); const v = await inner(); out.push('o2-' + v); }
outer();
out.push('sync');
Promise.resolve().then(() => out.push('t1')).then(() => out.push('t2')).then(() => out.push('t3'));
setTimeout(() => console.log(out.join(' ')));
