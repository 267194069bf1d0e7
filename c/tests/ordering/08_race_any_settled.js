// race, any and allSettled settle from the element reactions, in registration order.
let resolveA;
const a = new Promise((r) => { resolveA = r; });
const b = Promise.reject(new Error('nope'));
Promise.race([a, Promise.resolve('r')]).then((v) => console.log('race ' + v));
Promise.any([b, a]).then((v) => console.log('any ' + v));
Promise.any([b]).catch((e) => console.log('any rejected ' + e.errors.length));
Promise.any([]).catch((e) => console.log('any empty ' + e.errors.length));
Promise.allSettled([a, b]).then((rs) => console.log('settled ' + rs.map((r) => r.status).join(',')));
Promise.resolve().then(() => { console.log('resolve a'); resolveA('A'); });
