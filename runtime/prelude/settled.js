// Settlement helpers: as_settled and stream_settled (undocumented in Codex, present in 0.171).
// as_settled(promises) observes each input once, in the cell's own iteration order, and
// returns an async generator of {index, status, value | reason} in settlement order: the
// index is the position, or the key when `promises` is a Map. Settlements that arrive
// while the consumer is busy queue up; once the generator is closed (return(), or a
// `break` out of for-await) later ones are dropped. stream_settled(promises, callback)
// awaits the callback for each result.

function __cm_resolved(value) {
  return __cm_invoke(__cm_promise_resolve, __cm_Promise, value);
}

function __cm_as_settled(promises) {
  const iterate = promises === undefined || promises === null ? undefined : promises[__cm_iterator_key];
  if (typeof iterate !== "function") throw new __cm_TypeError("promises is not iterable");
  const state = __cm_record();  // shared with the generator below
  state.ready = __cm_list();
  state.pending = 0;
  state.wake = undefined;
  state.closed = false;
  function __cm_settled(result) {
    state.pending--;
    if (state.closed) return;
    __cm_push(state.ready, result);
    const wake = state.wake;
    if (wake !== undefined) {
      state.wake = undefined;
      wake();
    }
  }
  const keyed = __cm_has_instance(__cm_Map, promises);
  let position = 0;
  // The cell's own iterable, iterated the way a cell iterates it (Codex's host does too).
  const inputs = {
    __proto__: null,
    [__cm_iterator_key]: function __cm_inputs() { return __cm_apply(iterate, promises, __cm_list()); },
  };
  try {
    for (const entry of inputs) {
      const index = keyed ? entry[0] : position++;
      const promise = keyed ? entry[1] : entry;
      state.pending++;
      __cm_promise_then(
        __cm_resolved(promise),
        function __cm_ok(value) {
          try { __cm_settled({ index, status: "fulfilled", value }); } catch (e) { __cm_end_if_out_of_memory(e); throw e; }
        },
        function __cm_err(reason) {
          try { __cm_settled({ index, status: "rejected", reason }); } catch (e) { __cm_end_if_out_of_memory(e); throw e; }
        });
    }
  } catch (error) {
    __cm_end_if_out_of_memory(error);
    state.closed = true;
    throw error;
  }
  return __cm_settled_results(state);
}

async function* __cm_settled_results(state) {
  try {
    while (state.pending > 0 || state.ready.length > 0) {
      if (state.ready.length === 0) {
        const woken = new __cm_Promise(function __cm_wait(resolve) { state.wake = resolve; });
        // Its own `constructor`: awaiting it never looks at Promise.prototype.
        __cm_define_value(woken, "constructor", __cm_Promise, true, false, true);
        await woken;
      }
      const batch = state.ready;
      state.ready = __cm_list();
      for (let i = 0; i < batch.length; i++) yield batch[i];
    }
  } finally {
    state.closed = true;
    state.ready = __cm_list();
  }
}

async function __cm_stream_settled(promises, callback) {
  if (typeof callback !== "function") throw new __cm_TypeError("stream_settled requires a callback");
  const results = __cm_as_settled(promises);
  for (;;) {
    const step = await __cm_async_generator_next(results);
    if (step.done) return;
    await callback(step.value);
  }
}
