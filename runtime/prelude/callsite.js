// Call sites: the expression V8 names in a TypeError (`r.items.map is not a function`;
// iterable.js and destructure.js use the same tokens and printer for `list is not
// iterable`), recovered from the source position QuickJS reports.
//
// QuickJS reports the last source position it recorded before the failing operation: for a
// call, the callee's last `.` (a method) or the character before its name (a plain call),
// or a position inside the arguments when they read a property or call something; for a
// for-of, the start of the iterable expression. V8 prints the expression of the failing
// site (its CallPrinter, src/ast/prettyprinter.cc): names, `.name`, `[0]` and `[k]` keys,
// a string key as `.key`, literals (strings double-quoted), `(...)` for a call's arguments,
// `[1,2]`, `{}` and `{(intermediate value)}` for literals, `(intermediate value)` for a
// `new` or `await` result. Where the position fits more than one call, or the expression
// holds what this printer does not know, nothing is returned and the message stays
// QuickJS's.

const __cm_token_re = /\s+|\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|([A-Za-z_$\u00a0-\uffff][\w$\u00a0-\uffff]*)|(\d[\w.]*|\.\d[\w]*)|("(?:[^"\\\n]|\\[\s\S])*"?|'(?:[^'\\\n]|\\[\s\S])*'?)|(`)|(\/)|(>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.(?!\d)|\+\+|--|[-+*%&|^]=|\*\*|<<|>>|[^\s])/y;
const __cm_regex_body_re = /(?:[^\\/[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])*\/[A-Za-z]*/y;
function __cm_token(kind, text, start) {
  const t = __cm_record();
  t.kind = kind;
  t.text = text;
  t.start = start;
  t.match = -1;
  return t;
}

// The end (exclusive) of the piece of a template literal that starts at `i` (its "`", or the
// "}" ending a substitution): after its closing "`", or after the "${" of the next
// substitution; `__cm_template_closed` says which.
let __cm_template_closed = true;
function __cm_template_piece(text, i) {
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === "\\") { j += 2; continue; }
    if (c === "`") { __cm_template_closed = true; return j + 1; }
    if (c === "$" && __cm_char_at(text, j + 1) === "{") { __cm_template_closed = false; return j + 2; }
    j++;
  }
  __cm_template_closed = true;
  return text.length;
}

// Whether token `t` ends a value (so `(` after it calls and `/` after it divides).
function __cm_ends_value(t) {
  if (t === undefined) return false;
  if (t.kind === "name") return __cm_keywords[t.text] !== true;
  if (t.kind === "punct") return t.text === ")" || t.text === "]" || t.text === "}";
  return t.kind !== "tmplx" && t.kind !== "tmplmid";
}

// The tokens of `text` (comments and white space left out), brackets matched. A template
// literal is one token "tmpl" without substitutions; with them, its pieces are tokens
// "tmplx" (up to the first "${"), "tmplmid" and "tmpltail" (from a "}"), the first matched
// with the last, and the substitutions' own tokens between.
function __cm_tokenize(text) {
  const out = __cm_list();
  const open = __cm_list();
  let i = 0;
  while (i < text.length) {
    __cm_token_re.lastIndex = i;
    const m = __cm_regexp_exec(__cm_token_re, text);
    if (m === null) break;
    let end = __cm_token_re.lastIndex;
    let t = null;
    if (m[1] !== undefined) t = __cm_token("name", m[1], i);
    else if (m[2] !== undefined) t = __cm_token("num", m[2], i);
    else if (m[3] !== undefined) t = __cm_token("str", m[3], i);
    else if (m[4] !== undefined) {
      end = __cm_template_piece(text, i);
      t = __cm_token(__cm_template_closed ? "tmpl" : "tmplx", __cm_slice(text, i, end), i);
    } else if (m[6] === "}" && open.length > 0 && out[open[open.length - 1]].kind !== "punct") {
      // The end of a substitution: the template goes on.
      end = __cm_template_piece(text, i);
      const top = out[open[open.length - 1]];
      const head = top.kind === "tmplx" ? open[open.length - 1] : top.head;
      t = __cm_token(__cm_template_closed ? "tmpltail" : "tmplmid", __cm_slice(text, i, end), i);
      t.head = head;
      open.length = open.length - 1;
      if (__cm_template_closed) { out[head].match = out.length; t.match = head; }
    } else if (m[5] !== undefined) {
      if (__cm_ends_value(out[out.length - 1])) {
        t = __cm_token("punct", "/", i);
      } else {
        __cm_regex_body_re.lastIndex = i + 1;
        end = __cm_regexp_exec(__cm_regex_body_re, text) !== null ? __cm_regex_body_re.lastIndex : text.length;
        t = __cm_token("regex", __cm_slice(text, i, end), i);
      }
    } else if (m[6] !== undefined) t = __cm_token("punct", m[6], i);
    if (t !== null) {
      t.end = end;
      const k = out.length;
      __cm_push(out, t);
      if ((t.kind === "punct" && (t.text === "(" || t.text === "[" || t.text === "{")) || t.kind === "tmplx" || t.kind === "tmplmid") __cm_push(open, k);
      else if (t.kind === "punct" && (t.text === ")" || t.text === "]" || t.text === "}") && open.length > 0) {
        const o = open[open.length - 1];
        open.length = open.length - 1;
        out[o].match = k;
        t.match = o;
      }
    }
    i = end > i ? end : i + 1;
  }
  return out;
}

let __cm_tokens_lines = null;
let __cm_tokens_text = "";
let __cm_tokens = __cm_list();

// The cell's source and its tokens (made once per source).
function __cm_source_tokens() {
  if (__cm_tokens_lines !== __cm_source_lines) {
    __cm_tokens_lines = __cm_source_lines;
    __cm_tokens_text = __cm_join(__cm_source_lines, "\n");
    __cm_tokens = __cm_tokenize(__cm_tokens_text);
  }
  return __cm_tokens;
}

function __cm_is_punct(t, text) {
  return t !== undefined && t.kind === "punct" && t.text === text;
}

// A string literal's text without its quotes, or null when it holds an escape.
function __cm_string_content(t) {
  const inner = __cm_slice(t.text, 1, t.text.length - 1);
  return __cm_index_of(inner, "\\") < 0 && t.text.length >= 2 ? inner : null;
}

// Whether the `(` token at `k` opens the argument list of a call (not a declaration's
// parameters, a statement's head, a grouping or the arguments of `new`).
function __cm_is_call_paren(toks, k, news) {
  const t = toks[k];
  if (!__cm_is_punct(t, "(") || news[k] !== undefined) return false;
  const prev = toks[k - 1];
  if (prev === undefined) return false;
  if (prev.kind === "name") {
    if (__cm_keywords[prev.text] === true) return false;
    const before = toks[k - 2];
    if (before !== undefined && before.kind === "name" && before.text === "function") return false;
    if (__cm_is_punct(before, "*")) return false;
  } else if (!__cm_is_punct(prev, ")") && !__cm_is_punct(prev, "]")) {
    return false;
  }
  const after = t.match >= 0 ? toks[t.match + 1] : undefined;
  return !__cm_is_punct(after, "{") && !__cm_is_punct(after, "=>");
}

// V8's text of the literal elements of an array literal from `open` to `close`, or null.
function __cm_render_array(toks, open, close, news) {
  const parts = __cm_list();
  let start = open + 1;
  for (let k = open + 1; k <= close; k++) {
    const t = toks[k];
    if (k < close && !__cm_is_punct(t, ",")) {
      if (t.match > k) k = t.match;
      continue;
    }
    if (k === start) { if (k < close) return null; break; }
    const el = __cm_render(toks, k - 1, news);
    if (el === null || el.start !== start) return null;
    __cm_push(parts, el.text);
    start = k + 1;
  }
  return "[" + __cm_join(parts, ",") + "]";
}

// V8's text of an object literal from `open` to `close`: one `(intermediate value)` per property.
function __cm_render_object(toks, open, close) {
  let text = "{";
  let empty = true;
  for (let k = open + 1; k <= close; k++) {
    const t = toks[k];
    if (k < close && !__cm_is_punct(t, ",")) {
      if (t.match > k) k = t.match;
      empty = false;
      continue;
    }
    if (!empty) text += "(intermediate value)";
    empty = true;
  }
  return text + "}";
}

function __cm_rendered(start, text) {
  const r = __cm_record();
  r.start = start;
  r.text = text;
  return r;
}

// V8's text of the member or call expression whose last token is `i`: {start, text}, or null.
function __cm_render(toks, i, news) {
  const t = toks[i];
  if (t === undefined) return null;
  const prev = toks[i - 1];
  if (t.kind === "name") {
    if (__cm_is_punct(prev, ".") || __cm_is_punct(prev, "?.")) {
      const obj = __cm_render(toks, i - 2, news);
      return obj === null ? null : __cm_rendered(obj.start, obj.text + prev.text + t.text);
    }
    if (__cm_keywords[t.text] === true) return null;
    return __cm_rendered(i, t.text);
  }
  if (t.kind === "num") return __cm_rendered(i, t.text);
  if (t.kind === "str" || t.kind === "tmpl") {
    const inner = __cm_string_content(t);
    return inner === null ? null : __cm_rendered(i, '"' + inner + '"');
  }
  if (t.kind !== "punct" || t.match < 0) return null;
  const open = t.match;
  if (t.text === "]") {
    if (__cm_ends_value(toks[open - 1])) {
      if (open + 2 !== i) return null;
      const key = toks[open + 1];
      const obj = __cm_render(toks, open - 1, news);
      if (obj === null) return null;
      if (key.kind === "str") {
        const inner = __cm_string_content(key);
        return inner === null ? null : __cm_rendered(obj.start, obj.text + "." + inner);
      }
      if (key.kind === "num" || (key.kind === "name" && __cm_keywords[key.text] !== true)) {
        return __cm_rendered(obj.start, obj.text + "[" + key.text + "]");
      }
      return null;
    }
    const array = __cm_render_array(toks, open, i, news);
    return array === null ? null : __cm_rendered(open, array);
  }
  if (t.text === "}") return __cm_rendered(open, __cm_render_object(toks, open, i));
  if (t.text !== ")") return null;
  // The arguments of `new X(...)`: the object made is a value V8 does not print.
  if (news[open] !== undefined) return __cm_rendered(news[open], "(intermediate value)");
  if (__cm_is_call_paren(toks, open, news)) {
    const callee = __cm_render(toks, open - 1, news);
    return callee === null ? null : __cm_rendered(callee.start, callee.text + "(...)");
  }
  // A parenthesised expression: a member chain or literal prints without its parentheses.
  const first = toks[open + 1];
  if (first !== undefined && first.kind === "name" && (first.text === "await" || first.text === "new")) {
    return __cm_rendered(open, "(intermediate value)");
  }
  const inner = __cm_render(toks, i - 1, news);
  return inner !== null && inner.start === open + 1 ? __cm_rendered(open, inner.text) : null;
}

// The index of the `(` opening the arguments of the `new` at `k`, or -1 (`new X` has none),
// and the last token of its constructor expression in `__cm_new_callee_end`.
let __cm_new_callee_end = -1;
function __cm_new_args(toks, k) {
  let i = k + 1;
  const t = toks[i];
  if (t === undefined) return -1;
  if (__cm_is_punct(t, "(") || __cm_is_punct(t, "[")) i = t.match;
  else if (t.kind !== "name" || t.text === "new") return -1;
  while (i >= 0) {
    const next = toks[i + 1];
    if ((__cm_is_punct(next, ".") || __cm_is_punct(next, "?.")) && toks[i + 2] !== undefined && toks[i + 2].kind === "name") i += 2;
    else if (__cm_is_punct(next, "[") && next.match > 0) i = next.match;
    else break;
  }
  __cm_new_callee_end = i;
  const args = toks[i + 1];
  return __cm_is_punct(args, "(") ? i + 1 : -1;
}

// The argument lists of `new` expressions: the index of their `new` by that of their `(`.
function __cm_new_parens(toks) {
  const news = __cm_record();
  for (let k = 0; k < toks.length; k++) {
    if (toks[k].kind === "name" && toks[k].text === "new" && !__cm_is_punct(toks[k + 1], ".")) {
      const args = __cm_new_args(toks, k);
      if (args >= 0) news[args] = k;
    }
  }
  return news;
}

// The index of the first token that ends after character offset `offset`.
function __cm_token_at(toks, offset) {
  let lo = 0;
  let hi = toks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (toks[mid].end <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const __cm_first_frame_re = /^\s*at (\S+) \(<input>:(\d+):(\d+)\)/m;

// The character offset in the cell's source of the first frame of `stack`, or -1 when that
// frame is no cell code's (the runtime's own functions are named __cm_*) or repeats a
// later frame's position.
function __cm_stack_offset(stack) {
  const text = __cm_String(stack);
  const m = __cm_exec(__cm_first_frame_re, text);
  if (m === null || m.index !== __cm_index_of(text, "    at ")) return -1;
  if (__cm_starts_with(m[1], "__cm_") && !__cm_starts_with(m[1], "__cm_cell$")) return -1;
  // A function that recorded no position of its own is reported where its caller is
  // (`xs.map(([a]) => a)`): that position says nothing of where it failed.
  if (__cm_index_of(text, "(<input>:" + m[2] + ":" + m[3] + ")", m.index + m[0].length) >= 0) return -1;
  const line = __cm_Number(m[2]) - __cm_line_offset;
  if (line < 1 || line > __cm_source_lines.length) return -1;
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += __cm_source_lines[i].length + 1;
  return offset + __cm_Number(m[3]) - 1;
}

function __cm_pair(a, b) {
  const p = __cm_list();
  __cm_push(p, a);
  __cm_push(p, b);
  return p;
}

// The function bodies of the source as [first token, last token] pairs.
function __cm_function_bodies(toks) {
  const out = __cm_list();
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (__cm_is_punct(t, "=>")) {
      // The body only: QuickJS reports the making of an arrow at its parameters.
      const next = toks[k + 1];
      if (__cm_is_punct(next, "{")) { __cm_push(out, __cm_pair(k + 1, next.match)); continue; }
      let j = k + 1;
      while (j < toks.length) {
        const u = toks[j];
        if (u.kind === "punct" && (u.text === "," || u.text === ";" || u.text === ")" || u.text === "]" || u.text === "}")) break;
        j = u.match > j ? u.match + 1 : j + 1;
      }
      __cm_push(out, __cm_pair(k + 1, j - 1));
    } else if (__cm_is_punct(t, "{") && __cm_is_punct(toks[k - 1], ")")) {
      const head = toks[toks[k - 1].match - 1];
      if (head === undefined || head.kind !== "name" || (head.text !== "if" && head.text !== "for" &&
          head.text !== "while" && head.text !== "switch" && head.text !== "catch" && head.text !== "with")) {
        __cm_push(out, __cm_pair(k, t.match));
      }
    }
  }
  return out;
}

// Whether tokens `a` and `b` lie in the same function (no function body holds one only).
function __cm_same_function(bodies, a, b) {
  for (let i = 0; i < bodies.length; i++) {
    const inA = a >= bodies[i][0] && a <= bodies[i][1];
    const inB = b >= bodies[i][0] && b <= bodies[i][1];
    if (inA !== inB) return false;
  }
  return true;
}

// The start of the last `.name` of the member chain that ends at token `end`, else its
// first token: where QuickJS records a call's position.
function __cm_callee_anchor(toks, end, start) {
  for (let k = end; k > start; k--) {
    const t = toks[k];
    if (__cm_is_punct(t, ".") || __cm_is_punct(t, "?.")) return t.start;
    if (t.kind === "punct" && t.match >= 0 && t.match < k) k = t.match;
  }
  return toks[start].start - 1;
}

// The cell's tokens and what the failure at QuickJS's position in `stack` is read against:
// {toks, news, bodies, offset, at (the token there)}, or null when no position of the
// cell's own code is reported.
function __cm_site(stack) {
  const offset = __cm_stack_offset(stack);
  if (offset < 0) return null;
  const site = __cm_record();
  site.toks = __cm_source_tokens();
  site.news = __cm_new_parens(site.toks);
  site.bodies = __cm_function_bodies(site.toks);
  site.offset = offset;
  site.at = __cm_token_at(site.toks, offset);
  return site.at < site.toks.length ? site : null;
}

// The failing call at QuickJS's reported position in `stack`: {text, isNew} with V8's text
// of its callee, or null unless exactly one call fits the position (its callee holds it,
// or its arguments do; `o.run(a.b())` at `.b` fits both calls and names neither). A call
// whose arguments hold the position and whose callee is a global function now (`text(...)`,
// `JSON.stringify(...)`, a name the cell does not bind) is not the one that failed.
function __cm_failed_call(stack) {
  const site = __cm_site(stack);
  if (site === null) return null;
  const toks = site.toks;
  const news = site.news;
  const bodies = site.bodies;
  const offset = site.offset;
  const at = site.at;
  const found = __cm_list();
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    let callee;
    let close;
    const isNew = t.kind === "name" && t.text === "new" && !__cm_is_punct(toks[k + 1], ".");
    if (isNew) {
      const args = __cm_new_args(toks, k);
      if (__cm_new_callee_end < 0) continue;
      callee = __cm_new_callee_end;
      close = args >= 0 ? toks[args].match : callee;
    } else if (__cm_is_call_paren(toks, k, news)) {
      callee = k - 1;
      close = t.match;
    } else if ((t.kind === "tmpl" || t.kind === "tmplx") && __cm_ends_value(toks[k - 1])) {
      callee = k - 1;
      close = t.kind === "tmplx" && t.match > k ? t.match : k;
    } else {
      continue;
    }
    const r = __cm_render(toks, callee, news);
    const from = isNew ? t.start : r !== null ? __cm_callee_anchor(toks, callee, r.start) : toks[callee].start;
    const onCallee = offset >= from && offset <= toks[callee + 1].start;
    const inside = at > callee + 1 && at < close;
    if ((!onCallee && !inside) || !__cm_same_function(bodies, callee, at)) continue;
    if (inside && !onCallee && r !== null && !isNew && __cm_global_function(toks, r)) continue;
    const c = __cm_record();
    c.text = r !== null && (!isNew || r.start === k + 1) ? r.text : null;
    c.isNew = isNew;
    __cm_push(found, c);
  }
  return found.length === 1 && found[0].text !== null ? found[0] : null;
}

const __cm_dotted_re = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

// Whether the callee printed as `r.text` (`text`, `JSON.stringify`) is a function of the
// global object now, through data properties only, and the cell never binds its first name
// (every use of that name is called or read a property of).
function __cm_global_function(toks, r) {
  if (!__cm_test(__cm_dotted_re, r.text)) return false;
  const names = __cm_split(r.text, ".");
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.kind !== "name" || t.text !== names[0] || __cm_is_punct(toks[k - 1], ".") || __cm_is_punct(toks[k - 1], "?.")) continue;
    if (!__cm_is_punct(toks[k + 1], "(") && !__cm_is_punct(toks[k + 1], ".")) return false;
  }
  let value = globalThis;
  for (let i = 0; i < names.length; i++) {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
    const d = __cm_own_descriptor(value, names[i]);
    if (d === undefined || !__cm_has_own(d, "value")) return false;
    value = d.value;
  }
  return typeof value === "function";
}
