// oracle: {"tools": ["echo", "fail"], "yield_time_ms": 5000, "wait_until_done": true}
const T = text, N = notify, S = store, L = load, I = image, A = audio, C = content, G = generatedImage, ST = setTimeout, E = tools.echo, F = tools.fail, JP = JSON.parse, P0 = Promise;
function D(e) { return typeof e === "string" ? "string " + e : typeof e; }
function R(label, f) { try { const r = f(); T(label + " ok " + typeof r); } catch (e) { T(label + " threw " + D(e)); } }
{{TAMPER}}
R("text obj", () => T({a: 1, b: [1, "x"]}));
R("text str", () => T("s"));
R("notify", () => N("n"));
R("notify obj", () => N({b: 2}));
R("store", () => S("k", {v: [1, 2]}));
R("load", () => T(L("k")));
R("image", () => I("data:image/png;base64,AA"));
R("image block", () => I({type: "image", data: "AA", mimeType: "image/png"}));
R("content", () => C([{type: "text", text: "c"}]));
R("audio", () => A("data:audio/wav;base64,AA"));
R("gen", () => G({image_url: "data:image/png;base64,AA", output_hint: "h"}));
R("json parse", () => T(JP('{"p": [1]}')));
R("json parse bad", () => JP("{bad"));
try { const got = await E({x: [1, 2], y: "z"}); T("echo " + typeof got); T(got); } catch (e) { T("echo threw " + D(e)); }
try { await F({message: "boom"}); T("fail resolved"); } catch (e) { T("fail caught " + D(e)); }
R("timer", () => ST(() => T("timer fired"), 1));
try { await new P0((r) => ST(r, 5)); T("slept"); } catch (e) { T("sleep threw " + D(e)); }
T("end");
// ---- cell ----
{{TAMPER}}
throw new Error("uncaught after tampering");
// ---- cell ----
{{TAMPER}}
null.x;
// ---- cell ----
text("next cell");
