// oracle: {"description": "String.prototype.repeat of a long result: built as V8 builds it (a repeat longer than the heap can hold is fine until read), the same characters as a short repeat joined, short and converted counts unchanged"}
const huge = "x".repeat(5e8);
text(huge.length);
text("x".repeat(1e7));
const mixed = "é€😀\ud800".repeat(70001);
text(mixed.length + " " + (mixed === "é€😀\ud800".repeat(35000) + "é€😀\ud800".repeat(35001)) + " " + mixed.slice(-5));
text("ab".repeat(2.9) + "|" + "ab".repeat("3") + "|" + "x".repeat(0) + "|" + "".repeat(1e9).length + "|" + new String("ab").repeat(2));
text(String.prototype.repeat.call(12, 40000).length + " " + "-".repeat(40));
text(JSON.stringify(Object.getOwnPropertyDescriptor(String.prototype, "repeat")) + " " + String.prototype.repeat.name + " " + String.prototype.repeat.length);
text(String(Object.keys(String.prototype)) + "|" + ("repeat" in String.prototype));
