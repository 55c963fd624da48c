// String.prototype.repeat builds a long result as V8 does: by doubling, each step joining the
// piece to itself. QuickJS's built-in appends the string `count` times, one character after
// another for a one-character string: 'x'.repeat(1e7) takes about 20 ms where V8 takes under
// one, and a repeat larger than the cell's heap fails at once where V8's lazily joined
// strings succeed ('x'.repeat(5e8).length is 500000000 in Codex). QuickJS joins long strings
// lazily too (ropes, flattened when first read), so doubling makes the same few joins V8 makes.
//
// Only a primitive string with a whole-number count whose result is long takes this way; every
// other call (a short result, a String object, a count to convert, any error) goes to the
// built-in, so its behaviour and its error texts are QuickJS's as before.

const __cm_string_repeat = String.prototype.repeat;
const __cm_repeat_joined_chars = 65536;
// Below this many characters the built-in is as fast as joining and makes a flat string.
const __cm_max_string_chars = 536870888;
// V8's longest string (2 ** 29 - 24 characters): a longer result is the built-in's error.

function __cm_repeat_by_doubling(piece, count) {
  let result = "";
  for (;;) {
    if (count % 2 === 1) result += piece;
    count = __cm_trunc(count / 2);
    if (count === 0) return result;
    piece += piece;
  }
}

__cm_define_value(String.prototype, "repeat", __cm_intl_native("repeat", 1, function __cm_repeat(self, args) {
  const count = args[0];
  if (typeof self === "string" && typeof count === "number" && count > 0 && __cm_is_integer(count)) {
    const chars = self.length * count;
    if (chars >= __cm_repeat_joined_chars && chars <= __cm_max_string_chars) return __cm_repeat_by_doubling(self, count);
  }
  return __cm_apply(__cm_string_repeat, self, args);
}), true, false, true);
