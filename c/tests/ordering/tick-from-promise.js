// A tick queued by a promise job waits until the microtask queue is empty; the jobs it queues run after it, and so on.
const log = (s) => () => console.log(s);
Promise.resolve()
  .then(() => {
    console.log('a1');
    process.nextTick(() => {
      console.log('t1');
      Promise.resolve().then(() => { console.log('p1'); process.nextTick(log('t3')); });
      process.nextTick(log('t2'));
    });
  })
  .then(log('a2'))
  .then(log('a3'));
queueMicrotask(log('m1'));
