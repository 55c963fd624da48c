// JSON.parse with V8's error messages.

const __cm_hex_digit_re = /^[0-9a-fA-F]$/;
const __cm_json_words = ["true", "false", "null"];

// V8's message for JSON text `src` that QuickJS refused (V8 json-parser wording).
function __cm_json_parse_message(src) {
  const n = src.length;
  const at = function __cm_at(k) { return __cm_char_at(src, k); };
  if (src === "undefined" || src === "NaN" || src === "Infinity" || src === "[object Object]") {
    return '"' + src + '" is not valid JSON';
  }
  const where = function __cm_where(p) {
    let line = 1;
    let start = 0;
    for (let k = 0; k < p; k++) {
      if (at(k) === "\n" || (at(k) === "\r" && at(k + 1) !== "\n")) { line++; start = k + 1; }
    }
    return "in JSON at position " + p + " (line " + line + " column " + (p - start + 1) + ")";
  };
  const fail = function __cm_fail(text) { throw { __proto__: null, jsonMessage: text }; };
  const token = function __cm_token(p, specific) {
    if (specific) fail(specific + " " + where(p));
    if (p >= n) fail("Unexpected end of JSON input");
    const c = at(p);
    if (c === '"') fail("Unexpected string " + where(p));
    if (c === "-" || (c >= "0" && c <= "9")) fail("Unexpected number " + where(p));
    let context;
    if (n < 21) context = '"' + src + '"';
    else {
      const start = p >= 10 ? p - 10 : 0;
      const end = p + 10 < n ? p + 10 : n;
      context = (start > 0 ? "..." : "") + '"' + __cm_slice(src, start, end) + '"' + (end < n ? "..." : "");
    }
    fail("Unexpected token '" + c + "', " + context + " is not valid JSON");
  };
  let i = 0;
  const skip = function __cm_skip() { while (i < n && __cm_index_of(" \t\n\r", at(i)) >= 0 && at(i) !== "") i++; };
  const string = function __cm_string() {
    i++;
    for (;;) {
      if (i >= n) fail("Unterminated string " + where(i));
      const c = at(i);
      if (c === '"') { i++; return; }
      if (c < " ") fail("Bad control character in string literal " + where(i));
      if (c === "\\") {
        i++;
        if (i >= n) fail("Unterminated string " + where(i));
        if (at(i) === "u") {
          for (let k = 1; k <= 4; k++) {
            if (!__cm_test(__cm_hex_digit_re, at(i + k))) fail("Bad Unicode escape " + where(i + k >= n ? n : i + k));
          }
          i += 5;
          continue;
        }
        if (at(i) === "" || __cm_index_of('"\\/bfnrt', at(i)) < 0) fail("Bad escaped character " + where(i));
      }
      i++;
    }
  };
  const number = function __cm_number() {
    if (at(i) === "-") {
      i++;
      if (!(at(i) >= "0" && at(i) <= "9")) fail("No number after minus sign " + where(i));
    }
    if (at(i) === "0") {
      i++;
      if (at(i) >= "0" && at(i) <= "9") token(i);
    } else while (at(i) >= "0" && at(i) <= "9") i++;
    if (at(i) === ".") {
      i++;
      if (!(at(i) >= "0" && at(i) <= "9")) fail("Unterminated fractional number " + where(i));
      while (at(i) >= "0" && at(i) <= "9") i++;
    }
    if (at(i) === "e" || at(i) === "E") {
      i++;
      if (at(i) === "+" || at(i) === "-") i++;
      if (!(at(i) >= "0" && at(i) <= "9")) fail("Exponent part is missing a number " + where(i));
      while (at(i) >= "0" && at(i) <= "9") i++;
    }
  };
  const value = function __cm_value() {
    skip();
    const c = at(i);
    if (c === "{") {
      i++; skip();
      if (at(i) === "}") { i++; return; }
      if (at(i) !== '"') token(i, "Expected property name or '}'");
      for (;;) {
        string(); skip();
        if (at(i) !== ":") token(i, "Expected ':' after property name");
        i++;
        value(); skip();
        if (at(i) === ",") {
          i++; skip();
          if (at(i) !== '"') token(i, "Expected double-quoted property name");
          continue;
        }
        if (at(i) === "}") { i++; return; }
        token(i, "Expected ',' or '}' after property value");
      }
    }
    if (c === "[") {
      i++; skip();
      if (at(i) === "]") { i++; return; }
      for (;;) {
        value(); skip();
        if (at(i) === ",") { i++; continue; }
        if (at(i) === "]") { i++; return; }
        token(i, "Expected ',' or ']' after array element");
      }
    }
    if (c === '"') { string(); return; }
    if (c === "-" || (c >= "0" && c <= "9")) { number(); return; }
    for (let w = 0; w < __cm_json_words.length; w++) {
      const word = __cm_json_words[w];
      if (c === word[0]) {
        for (let k = 0; k < word.length; k++) if (at(i + k) !== word[k]) token(i + k);
        i += word.length;
        return;
      }
    }
    token(i);
  };
  try {
    value(); skip();
    if (i < n) fail("Unexpected non-whitespace character after JSON " + __cm_slice(where(i), "in JSON ".length));
  } catch (e) {
    if (e !== null && typeof e === "object" && __cm_get_prototype_of(e) === null) return e.jsonMessage;
    throw e;
  }
  return null;
}

function __cm_json_parse(text, reviver) {
  try {
    return __cm_apply(__cm_json_parse_intrinsic, undefined, arguments);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    if (!__cm_has_instance(__cm_SyntaxError, e)) throw e;
    const message = __cm_json_parse_message(__cm_String(text));
    if (message === null) throw e;
    throw new __cm_SyntaxError(message);
  }
}
const __cm_bound_parse = __cm_bind(__cm_json_parse, JSON);
__cm_define_value(__cm_bound_parse, "name", "parse", false, false, true);
__cm_define_value(__cm_bound_parse, "length", 2, false, false, true);
__cm_define_value(JSON, "parse", __cm_bound_parse, true, false, true);
