// The call-site readers (callsite.js, iterable.js, destructure.js) give V8's words for the
// expression a TypeError names (`r.items.map is not a function`, `list is not iterable`,
// `Cannot destructure property 'content' of 'null'`). Only a cell that fails with one of those
// errors needs them, and compiling them was a third of the time it takes to prepare each
// context, so the first error text that asks gets their source from the host (the "readers"
// host call, as Intl gets its implementation) and compiles it in a function of its own, which
// receives the prelude's captured built-ins it uses. The cell's source lines and line offset
// (setup.js) can change between calls (a notebook realm runs many cells), so the readers are
// told them before every call.
// When the readers cannot be compiled for lack of stack each answers "cannot tell", and the
// message stays QuickJS's; for lack of heap the cell ends with the heap-limit error.

const __cm_readers_uses = ["__cm_Number", "__cm_String", "__cm_char_at", "__cm_exec", "__cm_has_own",
  "__cm_index_of", "__cm_join", "__cm_keywords", "__cm_list", "__cm_own_descriptor", "__cm_push", "__cm_record",
  "__cm_regexp_exec", "__cm_slice", "__cm_split", "__cm_starts_with", "__cm_test"];
let __cm_readers_loaded = null;

function __cm_readers() {
  if (__cm_readers_loaded !== null) return __cm_readers_loaded;
  try {
    const env = __cm_record();
    const values = [__cm_Number, __cm_String, __cm_char_at, __cm_exec, __cm_has_own, __cm_index_of, __cm_join,
      __cm_keywords, __cm_list, __cm_own_descriptor, __cm_push, __cm_record, __cm_regexp_exec, __cm_slice,
      __cm_split, __cm_starts_with, __cm_test];
    for (let i = 0; i < values.length; i++) env[__cm_readers_uses[i]] = values[i];
    const prologue = '"use strict";\nconst {' + __cm_join(__cm_readers_uses, ", ") + "} = __cm_env;\n" +
      "let __cm_source_lines = null, __cm_line_offset = 0;\n";
    const epilogue = "\nconst __cm_exports = __cm_record();\n" +
      "__cm_exports.enter = function __cm_read_enter(lines, offset) {\n" +
      "  __cm_source_lines = lines; __cm_line_offset = offset;\n};\n" +
      "__cm_exports.failed_call = __cm_failed_call;\n__cm_exports.not_iterable = __cm_not_iterable;\n" +
      "__cm_exports.destructure_message = __cm_destructure_message;\n__cm_exports.stack_offset = __cm_stack_offset;\n" +
      "return __cm_exports;";
    // The host directly, not __cm_call: that one ends the cell on an exhausted heap.
    const reply = __cm_host("readers", "");
    if (typeof reply !== "string" || reply[0] !== "v") return null;
    const source = __cm_json_parse_intrinsic(__cm_slice(reply, 1));
    __cm_readers_loaded = __cm_Function("__cm_env", prologue + source + epilogue)(env);
  } catch (e) {
    // An exhausted heap (compiling the readers takes about 100 KB) ends the cell, as any
    // allocation failure of the runtime's code does: going on with the heap full left a
    // notebook realm unable to run its next cells (or crashed QuickJS). A stack too full to
    // compile them only keeps QuickJS's wording, and a later error tries again.
    __cm_end_if_out_of_memory(e);
    return null;
  }
  return __cm_readers_loaded;
}

// The readers, told the source of the cell whose error is being worded; null when they cannot
// be compiled.
function __cm_readers_here() {
  const readers = __cm_readers();
  if (readers !== null) readers.enter(__cm_source_lines, __cm_line_offset);
  return readers;
}

function __cm_failed_call(stack) {
  const readers = __cm_readers_here();
  return readers === null ? null : readers.failed_call(stack);
}

function __cm_not_iterable(stack, kind) {
  const readers = __cm_readers_here();
  return readers === null ? null : readers.not_iterable(stack, kind);
}

function __cm_destructure_message(kind) {
  const readers = __cm_readers_here();
  return readers === null ? null : readers.destructure_message(kind);
}

function __cm_stack_offset(stack) {
  const readers = __cm_readers_here();
  return readers === null ? -1 : readers.stack_offset(stack);
}
