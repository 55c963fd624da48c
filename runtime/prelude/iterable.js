// Iterations that failed: V8 names the iterable of a for-of or of a spread (`list is not
// iterable`, `g is not a function or its return value is not iterable`), read from the
// cell's source at the position QuickJS reports (the iterable's start, or the `...` before
// it); see callsite.js for the tokens and the printer.

// V8's words for an iterable written from token `from` to `to`: `EXPR is not iterable`, or
// for a call `CALLEE is not a function or its return value is not iterable`; null when
// this printer cannot print it.
function __cm_iterable_words(toks, from, to, news) {
  const r = __cm_render(toks, to, news);
  if (r === null || r.start !== from) return null;
  const last = toks[to];
  if (__cm_is_punct(last, ")") && __cm_is_call_paren(toks, last.match, news)) {
    const callee = __cm_render(toks, last.match - 1, news);
    return callee === null ? null : callee.text + " is not a function or its return value is not iterable";
  }
  return r.text + " is not iterable";
}

// The last token of the spread element whose `...` is token `k`.
function __cm_element_end(toks, k) {
  let j = k + 1;
  while (j < toks.length) {
    const t = toks[j];
    if (t.kind === "punct" && (t.text === "," || t.text === ")" || t.text === "]" || t.text === "}")) break;
    j = t.match > j ? t.match + 1 : j + 1;
  }
  return j - 1;
}

// The index of the bracket token that encloses token `k`, or -1.
function __cm_enclosing(toks, k) {
  for (let j = k - 1; j >= 0; j--) {
    const t = toks[j];
    if (t.match > k) return j;
    if (t.match >= 0 && t.match < j) j = t.match;
  }
  return -1;
}

// V8's message for an iteration that failed at the position in `stack`: a for-of, or a
// spread in an array literal (`EXPR is not iterable`) or in a call's arguments (V8 words
// that after the value: `kind` is "null" or "undefined" from QuickJS's message, else "").
// Null when the position is no such iterable's.
function __cm_not_iterable(stack, kind) {
  const site = __cm_site(stack);
  if (site === null) return null;
  const toks = site.toks;
  const news = site.news;
  const bodies = site.bodies;
  const at = site.at;
  for (let k = at; k >= 0; k--) {
    const t = toks[k];
    // A function inside the iterable (`xs.map(([a]) => a)`) fails in its own frame.
    if (!__cm_same_function(bodies, k, at)) continue;
    if (__cm_is_punct(t, "...")) {
      const end = __cm_element_end(toks, k);
      if (at < k || at > end) continue;
      const open = __cm_enclosing(toks, k);
      const o = toks[open];
      if (o === undefined) return null;
      if (__cm_is_punct(o, "(") && __cm_is_call_paren(toks, open, news)) {
        if (kind === "") return "Spread syntax requires ...iterable[Symbol.iterator] to be a function";
        const r = __cm_render(toks, end, news);
        const last = toks[end];
        if (r === null || r.start !== k + 1 || (__cm_is_punct(last, ")") && __cm_is_call_paren(toks, last.match, news))) return null;
        return r.text + " is not iterable (cannot read property " + kind + ")";
      }
      const prev = toks[open - 1];
      const pattern = (prev !== undefined && prev.kind === "name" && (prev.text === "const" || prev.text === "let" || prev.text === "var")) ||
        __cm_is_punct(toks[o.match + 1], "=");
      if (!__cm_is_punct(o, "[") || __cm_ends_value(prev) || pattern) return null;
      return __cm_iterable_words(toks, k + 1, end, news);
    }
    if (t.kind !== "name" || t.text !== "for") continue;
    const head = toks[k + 1];
    if (!__cm_is_punct(head, "(") || head.match < at) continue;
    let of = -1;
    for (let j = k + 2; j < head.match; j++) {
      const u = toks[j];
      if (u.kind === "name" && u.text === "of") { of = j; break; }
      if (u.match > j) j = u.match;
    }
    if (of < 0 || at <= of || at >= head.match) return null;
    return __cm_iterable_words(toks, of + 1, head.match - 1, news);
  }
  return null;
}
