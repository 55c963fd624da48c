// Intl stand-in: QuickJS has no Intl; a minimal en-US NumberFormat.

if (typeof globalThis.Intl === "undefined") {
  class NumberFormat {
    constructor(locale, options) { this.options = options || {}; }
    format(value) {
      const n = Number(value);
      if (!Number.isFinite(n)) return String(n);
      const max = this.options.maximumFractionDigits !== undefined ? this.options.maximumFractionDigits : 3;
      const fixed = Math.abs(n).toFixed(max).replace(/\.?0+$/, "");
      const [int, frac] = fixed.split(".");
      const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
      return (n < 0 ? "-" : "") + grouped + (frac ? "." + frac : "");
    }
  }
  Object.defineProperty(globalThis, "Intl", { value: { NumberFormat }, writable: true, configurable: true });
}
