// Destructuring that failed: V8's message for the one pattern of the cell that can have
// failed (`Cannot destructure property 'content' of 'null' as it is null.`, `undefined is
// not iterable`).
//
// QuickJS reports no position of its own for a pattern (the last one recorded before it,
// often the cell's start) and words both null and undefined alike (`Cannot convert undefined
// or null to object`). So a message is made only when the cell holds a single pattern of the
// kind that failed (object patterns for that message, iterations for an iterator's) and
// V8's words follow from its source: a declaration whose value is written in it (`null`,
// `undefined`, an object literal whose property a nested pattern reads) or, for an array
// pattern, whose value V8 names whatever it is (a name, a call, a literal). Otherwise the
// message stays QuickJS's (see callsite.js for the tokens and the printer).

// The patterns of the cell (declarations, parameters, assignments, for-of heads): the
// index of the `{` or `[` opening each, nested patterns not counted apart; and how many
// other iterations it holds (for-of, spread).
function __cm_pattern_sites(toks) {
  const sites = __cm_list();
  let iterations = 0;
  let inside = -1;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if ((t.kind === "name" && t.text === "of") || __cm_is_punct(t, "...")) iterations++;
    if (k <= inside || !(__cm_is_punct(t, "{") || __cm_is_punct(t, "[")) || t.match < 0) continue;
    const prev = toks[k - 1];
    const after = toks[t.match + 1];
    const declared = prev !== undefined && prev.kind === "name" && (prev.text === "const" || prev.text === "let" || prev.text === "var");
    const assigned = __cm_is_punct(after, "=") && !(t.text === "[" && __cm_ends_value(prev));
    const parameter = (__cm_is_punct(prev, "(") || __cm_is_punct(prev, ",")) && __cm_in_parameters(toks, k);
    if (declared || assigned || parameter) {
      __cm_push(sites, k);
      inside = t.match;
    }
  }
  const out = __cm_record();
  out.sites = sites;
  out.iterations = iterations;
  return out;
}

// Whether token `k` lies in the parameter list of a function (`(...) =>`, `(...) {`).
function __cm_in_parameters(toks, k) {
  for (let j = k - 1; j >= 0; j--) {
    const t = toks[j];
    if (t.match > k) {
      if (!__cm_is_punct(t, "(")) return false;
      const after = toks[t.match + 1];
      return __cm_is_punct(after, "=>") || __cm_is_punct(after, "{");
    }
    if (t.match >= 0 && t.match < j) j = t.match;
  }
  return false;
}

// The last token of the initializer that starts at `from` (up to a `,`, `;` or closing
// bracket of the declaration's level, or a line break before a token that cannot go on).
function __cm_initializer_end(toks, from) {
  let k = from;
  while (k < toks.length) {
    const t = toks[k];
    if (t.kind === "punct" && (t.text === "," || t.text === ";" || t.text === ")" || t.text === "]" || t.text === "}")) break;
    if (k > from && (t.kind === "name" || t.kind === "num" || t.kind === "str") && __cm_ends_value(toks[k - 1]) &&
        __cm_index_of(__cm_slice(__cm_tokens_text, toks[k - 1].end, t.start), "\n") >= 0) break;
    k = t.match > k ? t.match + 1 : k + 1;
  }
  return k - 1;
}

// The value an object literal from `open` to `close` gives property `key`: "absent", the
// literal's token kind or text ("null", "undefined", "object", "value"), or null when unknown.
function __cm_literal_property(toks, open, close, key) {
  for (let k = open + 1; k < close; k++) {
    const t = toks[k];
    if (!((t.kind === "name" || t.kind === "str") && __cm_is_punct(toks[k + 1], ":"))) return null;
    const name = t.kind === "str" ? __cm_string_content(t) : t.text;
    const v = toks[k + 2];
    if (v === undefined || name === null) return null;
    let end = k + 2;
    if (v.match > end) end = v.match;
    if (!__cm_is_punct(toks[end + 1], ",") && end + 1 !== close) return null;
    if (name === key) {
      if (v.kind === "name" && (v.text === "null" || v.text === "undefined")) return end === k + 2 ? v.text : null;
      if (__cm_is_punct(v, "{") || __cm_is_punct(v, "[") || v.kind === "num" || v.kind === "str" || v.kind === "tmpl") return "object";
      if (v.kind === "name" && (v.text === "true" || v.text === "false")) return "object";
      return null;
    }
    k = end + 1;
  }
  return "absent";
}

// V8's message for the object pattern at `open` with the value written in tokens
// `from`..`to`, or null.
function __cm_object_pattern_message(toks, open, from, to) {
  const init = toks[from];
  const close = toks[open].match;
  if (from === to && init.kind === "name" && (init.text === "null" || init.text === "undefined")) {
    const first = toks[open + 1];
    const next = toks[open + 2];
    if (first.kind === "name" && __cm_keywords[first.text] !== true) {
      if (__cm_is_punct(next, "=")) return "Cannot read properties of " + init.text + " (reading '" + first.text + "')";
      if (__cm_is_punct(next, ",") || __cm_is_punct(next, "}") || __cm_is_punct(next, ":")) {
        return "Cannot destructure property '" + first.text + "' of '" + init.text + "' as it is " + init.text + ".";
      }
      return null;
    }
    if (open + 1 === close || __cm_is_punct(first, "...") || __cm_is_punct(first, "[")) {
      return "Cannot destructure '" + init.text + "' as it is " + init.text + ".";
    }
    return null;
  }
  if (!__cm_is_punct(init, "{") || init.match !== to) return null;
  // An object literal: the first nested pattern that reads a property of null or undefined.
  for (let k = open + 1; k < close; k++) {
    const t = toks[k];
    if (t.kind !== "name" || __cm_keywords[t.text] === true) return null;
    let end = k;
    if (__cm_is_punct(toks[k + 1], ":")) {
      const v = toks[k + 2];
      if (__cm_is_punct(v, "{") && v.match > k + 2) {
        const value = __cm_literal_property(toks, from, to, t.text);
        const first = toks[k + 3];
        if (value === null || __cm_is_punct(toks[v.match + 1], "=")) return null;
        if (value === "absent" || value === "undefined" || value === "null") {
          const kind = value === "null" ? "null" : "undefined";
          if (first.kind !== "name" || !(__cm_is_punct(toks[k + 4], ",") || __cm_is_punct(toks[k + 4], "}"))) return null;
          return "Cannot read properties of " + kind + " (reading '" + first.text + "')";
        }
        end = v.match;
      } else if (v !== undefined && v.kind === "name") {
        end = k + 2;
      } else {
        return null;
      }
    }
    if (__cm_is_punct(toks[end + 1], "=")) return null;
    if (!__cm_is_punct(toks[end + 1], ",")) return null;
    k = end + 1;
  }
  return null;
}

// V8's message for the array pattern at `open` with the value written in tokens
// `from`..`to`; `kind` is "null", "undefined" or "" (QuickJS does not say).
function __cm_array_pattern_message(toks, from, to, kind, news) {
  const init = toks[from];
  if (init.kind === "name" && init.text === "await") return "(intermediate value) is not iterable";
  const last = toks[to];
  const member = (last.kind === "name" && (__cm_is_punct(toks[to - 1], ".") || __cm_is_punct(toks[to - 1], "?."))) ||
    (__cm_is_punct(last, "]") && __cm_ends_value(toks[last.match - 1]));
  if (!member) return __cm_iterable_words(toks, from, to, news);
  // A property's value is named by what it is, which QuickJS tells only for null and undefined.
  const r = __cm_render(toks, to, news);
  if (r === null || r.start !== from || kind === "") return null;
  return (kind === "null" ? "object null" : "undefined") + " is not iterable (cannot read property Symbol(Symbol.iterator))";
}

// V8's message for a destructuring that failed with QuickJS's `message` ("object": Cannot
// convert undefined or null to object; "null", "undefined", "": an iterator of that value),
// when the cell holds one pattern of that kind and it is a declaration V8's words follow
// from; else null.
function __cm_destructure_message(what) {
  const toks = __cm_source_tokens();
  const found = __cm_pattern_sites(toks);
  if (found.sites.length !== 1 || (what !== "object" && found.iterations > 0)) return null;
  const open = found.sites[0];
  if (!__cm_is_punct(toks[open], what === "object" ? "{" : "[")) return null;
  const prev = toks[open - 1];
  if (prev === undefined || prev.kind !== "name" || (prev.text !== "const" && prev.text !== "let" && prev.text !== "var")) return null;
  if (!__cm_is_punct(toks[toks[open].match + 1], "=")) return null;
  const from = toks[open].match + 2;
  if (from >= toks.length) return null;
  const to = __cm_initializer_end(toks, from);
  if (to < from) return null;
  if (what === "object") return __cm_object_pattern_message(toks, open, from, to);
  return __cm_array_pattern_message(toks, from, to, what, __cm_new_parens(toks));
}
