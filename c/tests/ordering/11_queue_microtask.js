// queueMicrotask shares the queue with promise reactions, first in first out.
const log = (s) => () => console.log(s);
queueMicrotask(log('m1'));
Promise.resolve().then(log('a1')).then(log('a2'));
queueMicrotask(() => { console.log('m2'); queueMicrotask(log('m3')); });
