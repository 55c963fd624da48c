// oracle: {"description": "content(): every MCP content block kind (text, image, audio, resource_link, resource), the fields it checks, what it emits, what it refuses; iterables of blocks; image()/audio() data URLs and _meta detail"}
const show = (label, f) => { try { const r = f(); text(label + " ok " + typeof r); } catch (e) { text(label + " threw " + typeof e + " " + String(e).split("\n")[0]); } };
const blocks = [
  {type: "resource_link", uri: "file:///tmp/a.txt", name: "a.txt"},
  {name: "n", uri: "u", type: "resource_link", title: "A file", description: "the a file", mimeType: "text/plain", size: 12, annotations: {audience: ["user"]}, _meta: {x: 1}, icons: [{src: "a", sizes: 7}], extra: {b: 1, a: [1e21, -0, 0.1]}},
  {type: "resource_link", uri: "", name: "é \u2028 </x> \u0000 😀", title: null, description: null, mimeType: null, size: null, icons: null, annotations: 5, _meta: 5},
  {type: "resource_link", uri: "u", name: "n", size: -1}, {type: "resource_link", uri: "u", name: "n", size: 3.0},
  {type: "resource_link", uri: "u", name: "n", size: 2 ** 60}, {type: "resource_link", uri: "u", name: "n", size: -(2 ** 60)},
  {type: "resource_link", uri: "u", name: "n", mime_type: 5, _meta: {"codex/encryptedContent": true}},
  {type: "resource_link", uri: "u", name: "n", toJSON() { return {type: "resource_link", uri: "tj", name: "tj", fn() {}}; }},
  {type: "resource", resource: {uri: "file:///b.txt", mimeType: "text/plain", text: "hello resource"}},
  {type: "resource", resource: {uri: "file:///b.bin", mimeType: null, blob: "!!not base64"}, annotations: 5, _meta: 5},
  {type: "resource", resource: {uri: "u", text: 5, blob: "b", title: 5, _meta: 5}},
  {type: "resource", resource: {uri: "u", text: "t", blob: 5, mime_type: 5}},
  {type: "text", text: ""}, {type: "text", text: "annotated", annotations: 5, _meta: 5, extra: 1},
  {type: "text", text: "not encrypted", _meta: {"codex/encryptedContent": "true"}},
  {type: "text", text: "not encrypted either", _meta: {"codex/encryptedContent": 1}},
  {type: "image", data: "AAAA", mimeType: "image/png", _meta: {"codex/imageDetail": "low"}},
  {type: "image", data: "AAAA", _meta: {"codex/imageDetail": "LOW"}},
  {type: "image", data: "", mimeType: ""}, {type: "image", data: "AA", mimeType: null},
  {type: "image", data: "AA", mime_type: "image/jpeg"}, {type: "image", data: "DATA:x", mimeType: "image/png"},
  {type: "image", data: "http://x/y.png", mimeType: "image/png", _meta: {"codex/encryptedContent": true}},
  {type: "audio", data: "AAAA", mimeType: "audio/wav"}, {type: "audio", data: "", mimeType: ""}, {type: "audio", data: "AA"},
];
for (const [i, b] of blocks.entries()) show("block " + i, () => content(b));
// ---- cell ----
const show = (label, f) => { try { const r = f(); text(label + " ok " + typeof r); } catch (e) { text(label + " threw " + typeof e + " " + String(e).split("\n")[0]); } };
const refused = [
  {type: "resource_link", uri: "https://example.com/x"}, {type: "resource_link", name: "n"},
  {type: "resource_link", uri: 5, name: "n"}, {type: "resource_link", uri: "u", name: null},
  {type: "resource_link", uri: "u", name: "n", title: 5}, {type: "resource_link", uri: "u", name: "n", description: 5},
  {type: "resource_link", uri: "u", name: "n", mimeType: 5}, {type: "resource_link", uri: "u", name: "n", size: "12"},
  {type: "resource_link", uri: "u", name: "n", size: 1.5}, {type: "resource_link", uri: "u", name: "n", size: true},
  {type: "resource_link", uri: "u", name: "n", size: 2 ** 63}, {type: "resource_link", uri: "u", name: "n", size: -(2 ** 63)},
  {type: "resource_link", uri: "u", name: "n", size: 1e21}, {type: "resource_link", uri: "u", name: "n", icons: 5},
  {type: "resource_link", uri: "u", name: "n", icons: {}},
  {type: "resource", resource: {uri: "file:///c"}}, {type: "resource", resource: {text: "x"}}, {type: "resource"},
  {type: "resource", resource: {uri: "u", text: 5}}, {type: "resource", resource: {uri: "u", blob: 5}},
  {type: "resource", resource: {uri: 5, text: "t"}}, {type: "resource", resource: {uri: "u", text: "t", mimeType: 5}},
  {type: "resource", resource: null}, {type: "resource", resource: "x"}, {type: "resource", resource: ["u", null, "t"]},
  {type: "text"}, {type: "text", text: 5},
  {type: "text", text: "secret", _meta: {"codex/encryptedContent": true, other: 1}},
  {type: "image", mimeType: "image/png"}, {type: "image", data: null}, {type: "image", data: 5},
  {type: "image", data: "AA", mimeType: 5}, {type: "image", data: "AA", mimeType: "image/png", mime_type: "image/jpeg"},
  {type: "audio", mimeType: "audio/wav"}, {type: "video", data: "x"}, {type: "TEXT", text: "x"}, {uri: "x"},
  "a string", 42, true, NaN, null, undefined, new Date(0), new Boolean(true),
  {type: "text", text: "lone \ud800"}, {type: "resource_link", uri: "u", name: "lone \ud800"},
  {type: "resource_link", uri: "u", name: "n", big: 10n}, Symbol("s"), function () {},
  {toJSON() { return undefined; }}, {toJSON() { return [{type: "text", text: "x"}]; }},
];
for (const [i, b] of refused.entries()) show("refused " + i, () => content(b));
show("no argument", () => content());
const circular = {type: "resource_link", uri: "u", name: "n"}; circular.self = circular;
show("circular", () => content(circular));
show("getter", () => content({type: "resource_link", uri: "u", name: "n", get boom() { throw new Error("getter"); }}));
// ---- cell ----
const show = (label, f) => { try { const r = f(); text(label + " ok " + typeof r); } catch (e) { text(label + " threw " + typeof e + " " + String(e).split("\n")[0]); } };
show("array", () => content([{type: "text", text: "a1"}, {type: "resource_link", uri: "u", name: "a2"}]));
show("empty array", () => content([]));
show("set", () => content(new Set([{type: "text", text: "s1"}, {type: "text", text: "s2"}])));
show("generator", () => content((function* () { yield {type: "text", text: "g1"}; yield {type: "bad"}; yield {type: "text", text: "g3"}; })()));
show("map", () => content(new Map([["k", {type: "text", text: "m"}]])));
show("iterable block", () => content({type: "text", text: "io", [Symbol.iterator]: function* () { yield {type: "text", text: "from iterator"}; }}));
show("nested", () => content([[{type: "text", text: "n"}]]));
show("arguments", () => content((function () { return arguments; })({type: "text", text: "arg"})));
show("typed array", () => content(new Uint8Array(1)));
show("string object", () => content(new String("ab")));
show("holes", () => content([, {type: "text", text: "h"}]));
show("function with toJSON", () => content(Object.assign(function () {}, {toJSON() { return {type: "text", text: "from fn"}; }})));
const log = [];
const tricky = { get [Symbol.iterator]() { log.push("get"); return function* () { log.push("iterate"); yield {type: "text", text: "t1"}; }; } };
show("getter iterable", () => content(tricky)); text(log.join(","));
let closed = false;
const closing = { [Symbol.iterator]() { let n = 0; return { next() { n++; return n === 1 ? {value: {type: "text", text: "i1"}, done: false} : {value: {type: "nope"}, done: false}; }, return() { closed = true; return {}; } }; } };
show("closing", () => content(closing)); text("closed " + closed);
const saved = Array.prototype[Symbol.iterator];
Array.prototype[Symbol.iterator] = function* () { yield {type: "text", text: "patched iterator"}; };
try { show("patched", () => content([{type: "text", text: "p1"}])); } finally { Array.prototype[Symbol.iterator] = saved; }
// ---- cell ----
const show = (label, f) => { try { const r = f(); text(label + " ok " + typeof r); } catch (e) { text(label + " threw " + typeof e + " " + String(e).split("\n")[0]); } };
show("image DATA:", () => image({type: "image", data: "DATA:x", mimeType: "image/png"}));
show("image meta LOW", () => image({type: "image", data: "AA", _meta: {"codex/imageDetail": "LOW"}}));
show("image meta original", () => image({type: "image", data: "AA", _meta: {"codex/imageDetail": "original"}}));
show("image empty mime", () => image({type: "image", data: "AA", mimeType: ""}));
show("image both mime names", () => image({type: "image", data: "AA", mimeType: "image/png", mime_type: "image/jpeg"}));
show("image empty data", () => image({type: "image", data: "", mimeType: "image/png"}));
show("audio DATA:", () => audio({type: "audio", data: "DATA:x"}));
show("audio empty mime", () => audio({type: "audio", data: "AA", mimeType: ""}));
show("audio empty data", () => audio({type: "audio", data: ""}));
