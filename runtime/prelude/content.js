// Content helpers: text, image, audio, generatedImage, content, notify.
//
// The cell's value is read as Codex's host reads it: URL forms (`image_url`,
// `audio_url`, `output_hint`, `detail`) straight from the value, prototypes included;
// an MCP block (`{type: "image", data, mimeType}`) is serialised to JSON first (its
// toJSON counts), checked the way Codex's serde_json reads it, and read back from that
// JSON, own fields only.

const IMAGE_EXPECTS = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
const AUDIO_EXPECTS = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
const CONTENT_EXPECTS = "content expects one MCP ContentBlock";
const DETAILS = { __proto__: null, auto: true, low: true, high: true, original: true };

// A record the runtime emits as a content item.
function __cm_item(type, key, value) {
  const item = __cm_record();
  item.type = type;
  item[key] = value;
  return item;
}

function __cm_detail(d) {
  if (d === undefined || d === null) return undefined;
  if (typeof d !== "string") throw "image detail must be a string when provided";
  const lower = __cm_lower(d);
  if (DETAILS[lower] !== true) throw "image detail must be one of: auto, low, high, original";
  return lower;
}

// JSON.parse whose objects and arrays inherit nothing (fields are then read as own).
function __cm_plain_reviver(key, value) {
  if (value !== null && typeof value === "object") __cm_set_prototype_of(value, null);
  return value;
}

// An MCP block as Codex's host reads it: serialised with the cell's JSON semantics,
// checked like serde_json would read the text (a lone surrogate fails), parsed back.
// Returns a record without prototype, or a non-object when the JSON is no object.
function __cm_block_json(block) {
  const json = __cm_stringify_json(block);
  if (json === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
  __cm_call("checkjson", json);
  return __cm_json_parse_intrinsic(json, __cm_plain_reviver);
}

function __cm_is_record(value) {
  return value !== null && typeof value === "object" && !__cm_is_array(value);
}

// `data:` URL of a parsed MCP image or audio block.
function __cm_block_url(block, kind) {
  const data = block.data;
  if (typeof data !== "string" || data === "") throw kind + " expected MCP " + kind + " data";
  let mime = block.mimeType !== undefined ? block.mimeType : block.mime_type;
  if (typeof mime !== "string" || mime === "") mime = "application/octet-stream";
  return __cm_starts_with(data, "data:") ? data : "data:" + mime + ";base64," + data;
}

// The image_url scheme checks of Codex's image output.
function __cm_check_image_url(url) {
  if (typeof url !== "string" || url === "") throw IMAGE_EXPECTS;
  const colon = __cm_index_of(url, ":");
  const scheme = colon < 0 ? "" : __cm_lower(__cm_slice(url, 0, colon));
  if (scheme === "http" || scheme === "https") {
    throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
  }
  if (scheme !== "data") throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
}

// The input_image item of a parsed MCP image block.
function __cm_image_block_item(parsed, override) {
  if (!__cm_is_record(parsed)) throw IMAGE_EXPECTS;
  if (parsed.type !== "image") throw "image only accepts MCP image blocks, got " + __cm_quote(__cm_String(parsed.type));
  const url = __cm_block_url(parsed, "image");
  __cm_check_image_url(url);
  let embedded;
  const meta = parsed._meta;
  const d = __cm_is_record(meta) ? meta["codex/imageDetail"] : undefined;
  if (typeof d === "string" && DETAILS[__cm_lower(d)] === true) embedded = __cm_lower(d);
  return __cm_image_record(url, override !== undefined ? override : embedded);
}

function __cm_image_record(url, detail) {
  const item = __cm_item("input_image", "image_url", url);
  item.detail = detail !== undefined ? detail : "high";
  return item;
}

function __cm_image_item(value, override) {
  if (typeof value === "string") {
    __cm_check_image_url(value);
    return __cm_image_record(value, override);
  }
  if (!__cm_is_record(value)) throw IMAGE_EXPECTS;
  const url = value.image_url;
  if (typeof url === "string") {
    __cm_check_image_url(url);
    const embedded = __cm_detail(value.detail);
    return __cm_image_record(url, override !== undefined ? override : embedded);
  }
  if (typeof value.type !== "string") throw IMAGE_EXPECTS;
  if (value.type !== "image") throw "image only accepts MCP image blocks, got " + __cm_quote(value.type);
  return __cm_image_block_item(__cm_block_json(value), override);
}

function __cm_text(value) {
  __cm_emit(__cm_item("input_text", "text", __cm_to_text(value)));
}

function __cm_image(value, detail) {
  const override = __cm_detail(detail);
  __cm_emit(__cm_image_item(value, override));
}

// The input_audio item of a parsed MCP audio block.
function __cm_audio_block_item(parsed) {
  if (!__cm_is_record(parsed)) throw AUDIO_EXPECTS;
  if (parsed.type !== "audio") throw "audio only accepts MCP audio blocks, got " + __cm_quote(__cm_String(parsed.type));
  return __cm_audio_record(__cm_block_url(parsed, "audio"));
}

function __cm_audio_record(url) {
  if (typeof url !== "string" || url === "") throw AUDIO_EXPECTS;
  if (!__cm_starts_with(__cm_lower(url), "data:")) throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
  return __cm_item("input_audio", "audio_url", url);
}

function __cm_audio(value) {
  if (typeof value === "string") return void __cm_emit(__cm_audio_record(value));
  if (!__cm_is_record(value)) throw AUDIO_EXPECTS;
  const url = value.audio_url;
  if (typeof url === "string") return void __cm_emit(__cm_audio_record(url));
  if (typeof value.type !== "string") throw AUDIO_EXPECTS;
  if (value.type !== "audio") throw "audio only accepts MCP audio blocks, got " + __cm_quote(value.type);
  __cm_emit(__cm_audio_block_item(__cm_block_json(value)));
}

function __cm_generated_image(result) {
  if (!__cm_is_record(result)) throw "generatedImage expects an image generation result object";
  const hint = result.output_hint;
  if (hint !== undefined && hint !== null && typeof hint !== "string") {
    throw "generatedImage output_hint must be a string when provided";
  }
  __cm_emit(__cm_image_item(result, undefined));
  if (typeof hint === "string") __cm_emit(__cm_item("input_text", "text", hint));
}

// content(block | block[]): MCP content blocks (text, image, audio), each serialised
// and read back like Codex's host does.
function __cm_content_block(block) {
  if (block === null || typeof block !== "object") throw CONTENT_EXPECTS;
  const parsed = __cm_block_json(block);
  if (!__cm_is_record(parsed)) throw CONTENT_EXPECTS;
  if (parsed.type === "text" && typeof parsed.text === "string") {
    __cm_emit(__cm_item("input_text", "text", parsed.text));
  } else if (parsed.type === "image") {
    __cm_emit(__cm_image_block_item(parsed, undefined));
  } else if (parsed.type === "audio") {
    __cm_emit(__cm_audio_block_item(parsed));
  } else {
    throw CONTENT_EXPECTS;
  }
}

function __cm_content(value) {
  if (__cm_is_array(value)) {
    // The cell's own array: iterated the way a cell iterates it (Codex's host does too).
    for (const block of value) __cm_content_block(block);
  } else {
    __cm_content_block(value);
  }
}

function __cm_notify(value) {
  const text = __cm_to_text(value);
  if (__cm_trim(text) === "") throw "notify expects non-empty text";
  __cm_call("notify", __cm_quote(text));
}
