// An async function that awaits settled values, beside a .then chain.
const out = [];
async function f() { out.push('f1'); await null; out.push('f2'); await null; out.push('f3'); }
f();
Promise.resolve().then(() => out.push('t1')).then(() => out.push('t2')).then(() => out.push('t3'));
out.push('sync');
setTimeout(() => console.log(out.join(' ')));
