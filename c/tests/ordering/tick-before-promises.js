// After the main script, as after every callback: all ticks first, then promise jobs and queueMicrotask in one FIFO.
const log = (s) => () => console.log(s);
console.log('sync');
Promise.resolve().then(log('a1')).then(log('a2'));
process.nextTick(log('t1'));
queueMicrotask(log('m1'));
process.nextTick(log('t2'));
