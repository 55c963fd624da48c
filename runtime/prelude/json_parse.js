// JSON.parse with V8's error messages.

// ---- JSON.parse errors in V8's words --------------------------------------------

// V8's message for JSON text `src` that QuickJS refused (V8 json-parser wording).
function __cm_json_parse_message(src) {
  const n = src.length;
  if (src === "undefined" || src === "NaN" || src === "Infinity" || src === "[object Object]") {
    return '"' + src + '" is not valid JSON';
  }
  const where = function __cm_where(p) {
    let line = 1;
    let start = 0;
    for (let k = 0; k < p; k++) {
      if (src[k] === "\n" || (src[k] === "\r" && src[k + 1] !== "\n")) { line++; start = k + 1; }
    }
    return "in JSON at position " + p + " (line " + line + " column " + (p - start + 1) + ")";
  };
  const fail = function __cm_fail(text) { throw { jsonMessage: text }; };
  const token = function __cm_token(p, specific) {
    if (specific) fail(specific + " " + where(p));
    if (p >= n) fail("Unexpected end of JSON input");
    const c = src[p];
    if (c === '"') fail("Unexpected string " + where(p));
    if (c === "-" || (c >= "0" && c <= "9")) fail("Unexpected number " + where(p));
    let context;
    if (n < 21) context = '"' + src + '"';
    else {
      const start = p >= 10 ? p - 10 : 0;
      const end = p + 10 < n ? p + 10 : n;
      context = (start > 0 ? "..." : "") + '"' + src.slice(start, end) + '"' + (end < n ? "..." : "");
    }
    fail("Unexpected token '" + c + "', " + context + " is not valid JSON");
  };
  let i = 0;
  const skip = function __cm_skip() { while (i < n && " \t\n\r".includes(src[i])) i++; };
  const string = function __cm_string() {
    i++;
    for (;;) {
      if (i >= n) fail("Unterminated string " + where(i));
      const c = src[i];
      if (c === '"') { i++; return; }
      if (c < " ") fail("Bad control character in string literal " + where(i));
      if (c === "\\") {
        i++;
        if (i >= n) fail("Unterminated string " + where(i));
        if (src[i] === "u") {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(src[i + k] || "")) fail("Bad Unicode escape " + where(i + k >= n ? n : i + k));
          }
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(src[i])) fail("Bad escaped character " + where(i));
      }
      i++;
    }
  };
  const number = function __cm_number() {
    if (src[i] === "-") {
      i++;
      if (!(src[i] >= "0" && src[i] <= "9")) fail("No number after minus sign " + where(i));
    }
    if (src[i] === "0") {
      i++;
      if (src[i] >= "0" && src[i] <= "9") token(i);
    } else while (src[i] >= "0" && src[i] <= "9") i++;
    if (src[i] === ".") {
      i++;
      if (!(src[i] >= "0" && src[i] <= "9")) fail("Unterminated fractional number " + where(i));
      while (src[i] >= "0" && src[i] <= "9") i++;
    }
    if (src[i] === "e" || src[i] === "E") {
      i++;
      if (src[i] === "+" || src[i] === "-") i++;
      if (!(src[i] >= "0" && src[i] <= "9")) fail("Exponent part is missing a number " + where(i));
      while (src[i] >= "0" && src[i] <= "9") i++;
    }
  };
  const value = function __cm_value() {
    skip();
    const c = src[i];
    if (c === "{") {
      i++; skip();
      if (src[i] === "}") { i++; return; }
      if (src[i] !== '"') token(i, "Expected property name or '}'");
      for (;;) {
        string(); skip();
        if (src[i] !== ":") token(i, "Expected ':' after property name");
        i++;
        value(); skip();
        if (src[i] === ",") {
          i++; skip();
          if (src[i] !== '"') token(i, "Expected double-quoted property name");
          continue;
        }
        if (src[i] === "}") { i++; return; }
        token(i, "Expected ',' or '}' after property value");
      }
    }
    if (c === "[") {
      i++; skip();
      if (src[i] === "]") { i++; return; }
      for (;;) {
        value(); skip();
        if (src[i] === ",") { i++; continue; }
        if (src[i] === "]") { i++; return; }
        token(i, "Expected ',' or ']' after array element");
      }
    }
    if (c === '"') { string(); return; }
    if (c === "-" || (c >= "0" && c <= "9")) { number(); return; }
    for (const word of ["true", "false", "null"]) {
      if (c === word[0]) {
        for (let k = 0; k < word.length; k++) if (src[i + k] !== word[k]) token(i + k);
        i += word.length;
        return;
      }
    }
    token(i);
  };
  try {
    value(); skip();
    if (i < n) fail("Unexpected non-whitespace character after JSON " + where(i).slice("in JSON ".length));
  } catch (e) {
    if (e && typeof e.jsonMessage === "string") return e.jsonMessage;
    throw e;
  }
  return null;
}

const originalParse = JSON.parse;
function __cm_json_parse(text, reviver) {
  try {
    return originalParse.apply(JSON, arguments);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    const message = __cm_json_parse_message(String(text));
    if (message === null) throw e;
    throw new SyntaxError(message);
  }
}
const boundParse = Function.prototype.bind.call(__cm_json_parse, JSON);
Object.defineProperty(boundParse, "name", { value: "parse" });
Object.defineProperty(boundParse, "length", { value: 2 });
Object.defineProperty(JSON, "parse", { value: boundParse, writable: true, configurable: true, enumerable: false });
