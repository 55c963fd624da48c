// Settlement helpers: as_settled and stream_settled (undocumented in Codex, present in 0.171).
// as_settled(promises) is an async iterator of {index, status, value | reason} in
// settlement order; stream_settled(promises, callback) awaits the callback for each.

function __cm_resolved(value) {
  return __cm_invoke(__cm_promise_resolve, __cm_Promise, value);
}

function __cm_as_settled(promises) {
  const list = __cm_array_from(promises);
  const count = list.length;
  const queue = __cm_list();
  let queueHead = 0;
  const waiters = __cm_list();
  let waiterHead = 0;
  function __cm_settled(entry) {
    if (waiterHead < waiters.length) {
      const resolve = waiters[waiterHead++];
      resolve({ value: entry, done: false });
    } else {
      __cm_push(queue, entry);
    }
  }
  for (let i = 0; i < count; i++) {
    const index = i;
    __cm_promise_then(
      __cm_resolved(list[i]),
      function __cm_ok(value) {
        try { __cm_settled({ index, status: "fulfilled", value }); } catch (e) { __cm_end_if_out_of_memory(e); throw e; }
      },
      function __cm_err(reason) {
        try { __cm_settled({ index, status: "rejected", reason }); } catch (e) { __cm_end_if_out_of_memory(e); throw e; }
      });
  }
  let delivered = 0;
  const state = __cm_record();
  state.next = function __cm_next() {
    if (delivered >= count) return __cm_resolved({ value: undefined, done: true });
    delivered++;
    if (queueHead < queue.length) return __cm_resolved({ value: queue[queueHead++], done: false });
    return new __cm_Promise(function __cm_wait(resolve) { __cm_push(waiters, resolve); });
  };
  state.finish = function __cm_finish() {
    delivered = count;
    return __cm_resolved({ value: undefined, done: true });
  };
  const iterator = __cm_object_create(__cm_settled_iterator_prototype);
  __cm_weak_set(__cm_iterator_state, iterator, state);
  return iterator;
}

const __cm_iterator_state = new __cm_WeakMap();
const __cm_settled_iterator_prototype = __cm_object_create(Object.prototype, {
  next: { value: function next() { return __cm_weak_get(__cm_iterator_state, this).next(); }, writable: true, configurable: true },
  return: { value: function __cm_return() { return __cm_weak_get(__cm_iterator_state, this).finish(); }, writable: true, configurable: true },
  [Symbol.asyncIterator]: { value: function __cm_iter() { return this; }, writable: true, configurable: true },
});

async function __cm_stream_settled(promises, callback) {
  if (typeof callback !== "function") throw new __cm_TypeError("stream_settled requires a callback");
  const iterator = __cm_as_settled(promises);
  const state = __cm_weak_get(__cm_iterator_state, iterator);
  for (;;) {
    const step = await state.next();
    if (step.done) return;
    await callback(step.value);
  }
}
