// queueMicrotask and nextTick queue into each other: each queue stays FIFO, ticks go first at every turn.
const log = (s) => () => console.log(s);
queueMicrotask(() => { console.log('m1'); process.nextTick(log('t2')); queueMicrotask(log('m2')); });
process.nextTick(() => { console.log('t1'); queueMicrotask(log('m3')); });
