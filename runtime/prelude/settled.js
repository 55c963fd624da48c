// Settlement helpers: as_settled and stream_settled (undocumented in Codex, present in 0.171).

function __cm_as_settled(promises) {
  const list = Array.from(promises);
  const queue = [];
  const waiters = [];
  list.forEach(function __cm_watch(p, index) {
    Promise.resolve(p).then(
      function __cm_ok(value) { __cm_push({ index, status: "fulfilled", value }); },
      function __cm_err(reason) { __cm_push({ index, status: "rejected", reason }); });
  });
  function __cm_push(entry) {
    if (waiters.length) waiters.shift()({ value: entry, done: false });
    else queue.push(entry);
  }
  let delivered = 0;
  const iterator = Object.create(SettledIterator.prototype);
  iteratorState.set(iterator, {
    next() {
      if (delivered >= list.length) return Promise.resolve({ value: undefined, done: true });
      delivered++;
      if (queue.length) return Promise.resolve({ value: queue.shift(), done: false });
      return new Promise(function __cm_wait(resolve) { waiters.push(resolve); });
    },
    finish() {
      delivered = list.length;
      return Promise.resolve({ value: undefined, done: true });
    },
  });
  return iterator;
}

const iteratorState = new WeakMap();
function SettledIterator() {}
SettledIterator.prototype = Object.create(Object.prototype, {
  next: { value: function next() { return iteratorState.get(this).next(); }, writable: true, configurable: true },
  return: { value: function __cm_return() { return iteratorState.get(this).finish(); }, writable: true, configurable: true },
  [Symbol.asyncIterator]: { value: function __cm_iter() { return this; }, writable: true, configurable: true },
});

async function __cm_stream_settled(promises, callback) {
  if (typeof callback !== "function") throw new TypeError("stream_settled requires a callback");
  for await (const entry of __cm_as_settled(promises)) await callback(entry);
}
