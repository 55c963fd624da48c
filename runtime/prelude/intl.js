// Intl stand-in: QuickJS has no Intl; a minimal en-US NumberFormat.

// `digits` (a string of decimal digits) with a comma every three digits from the right.
function __cm_group_thousands(digits) {
  let out = "";
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
    out += digits[i];
  }
  return out;
}

function __cm_format_number(value, options) {
  const n = __cm_Number(value);
  if (!__cm_is_finite(n)) return __cm_String(n);
  const max = options.maximumFractionDigits !== undefined ? options.maximumFractionDigits : 3;
  let fixed = __cm_to_fixed(__cm_abs(n), max);
  const dot = __cm_index_of(fixed, ".");
  if (dot >= 0) {
    let end = fixed.length;
    while (end > dot + 1 && fixed[end - 1] === "0") end--;
    if (end === dot + 1) end = dot;
    fixed = __cm_slice(fixed, 0, end);
  }
  const point = __cm_index_of(fixed, ".");
  const int = point < 0 ? fixed : __cm_slice(fixed, 0, point);
  const frac = point < 0 ? "" : __cm_slice(fixed, point + 1);
  return (n < 0 ? "-" : "") + __cm_group_thousands(int) + (frac !== "" ? "." + frac : "");
}

if (typeof globalThis.Intl === "undefined") {
  class NumberFormat {
    constructor(locale, options) { this.options = options || {}; }
    format(value) { return __cm_format_number(value, this.options); }
  }
  __cm_define_value(globalThis, "Intl", { NumberFormat }, true, false, true);
}
