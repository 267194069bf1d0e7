// A reaction that registers another reaction on a settled promise queues it behind the rest.
const log = (s) => () => console.log(s);
const r = Promise.resolve('r');
r.then(() => { console.log('a1'); r.then(log('nested')); }).then(log('a2'));
r.then(log('b1'));
