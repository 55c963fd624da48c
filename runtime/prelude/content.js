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

// An MCP block as Codex's host reads it: serialised with the cell's JSON semantics and
// checked like serde_json would read the text (a lone surrogate fails).
function __cm_block_text(block) {
  const json = __cm_stringify_json(block);
  if (json === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
  __cm_call("checkjson", json);
  return json;
}

// The JSON text of an MCP block parsed back: a record without prototype, or a
// non-object when the JSON is no object.
function __cm_parse_block(json) {
  return __cm_json_parse_intrinsic(json, __cm_plain_reviver);
}

function __cm_block_json(block) {
  return __cm_parse_block(__cm_block_text(block));
}

function __cm_is_record(value) {
  return value !== null && typeof value === "object" && !__cm_is_array(value);
}

// The URL of an MCP block's `data`: the data itself when it is a `data:` URL (in any
// case), else a base64 data URL of MIME type `mime`.
function __cm_data_url(data, mime) {
  return __cm_lower(__cm_slice(data, 0, 5)) === "data:" ? data : "data:" + mime + ";base64," + data;
}

// `data:` URL of a parsed MCP image or audio block given to image() or audio().
function __cm_block_url(block, kind) {
  const data = block.data;
  if (typeof data !== "string" || data === "") throw kind + " expected MCP " + kind + " data";
  let mime = block.mimeType !== undefined ? block.mimeType : block.mime_type;
  if (typeof mime !== "string" || mime === "") mime = "application/octet-stream";
  return __cm_data_url(data, mime);
}

// The detail an MCP image block's `_meta["codex/imageDetail"]` asks for: one of the
// details exactly as written (no case folding), else undefined (ignored silently).
function __cm_meta_detail(block) {
  const meta = block._meta;
  const d = __cm_is_record(meta) ? meta["codex/imageDetail"] : undefined;
  return typeof d === "string" && DETAILS[d] === true ? d : undefined;
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
  return __cm_image_record(url, override !== undefined ? override : __cm_meta_detail(parsed));
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

// text(): a well-formed text (no lone surrogate, which the QuickJS binding cannot convert)
// crosses as it is, not as a JSON string literal that both sides would have to write and
// read; its length rides in the operation's name, so the host notices a text the binding
// cut at a NUL and answers "json": that text then crosses as any other item does.
function __cm_text(value) {
  const text = __cm_to_text(value);
  if (__cm_is_well_formed(text) && __cm_call("text:" + text.length, text) !== "json") return;
  __cm_emit(__cm_item("input_text", "text", text));
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

// content(block | iterable of blocks): each block is read the way Codex's host reads
// one MCP ContentBlock (serde, unknown fields ignored):
// - text {text: string}: its text; `_meta["codex/encryptedContent"] === true` is refused;
// - image / audio {data: string, mimeType | mime_type: string | null}: a data URL (data
//   already a `data:` URL is kept; the MIME type defaults to application/octet-stream,
//   "" stays ""), an image with the detail of its `_meta` (default high);
// - resource_link {uri, name: string; title, description, mimeType: string | null;
//   size: 64-bit integer | null; icons: array | null} and resource {resource: {uri:
//   string, mimeType: string | null, text or blob: string}}: a text item holding the
//   block's JSON text.
// Anything else throws "content expects one MCP ContentBlock".
function __cm_optional(value, type) {
  return value === undefined || value === null || typeof value === type;
}

function __cm_is_i64(value) {
  // serde reads the JSON text as i64: an integer written without exponent in range
  // (JSON.stringify writes -2**63 as -9223372036854776000, below the range).
  return typeof value === "number" && __cm_is_integer(value) &&
    value > -9223372036854775808 && value < 9223372036854775808;
}

function __cm_is_resource_link(b) {
  return typeof b.uri === "string" && typeof b.name === "string" && __cm_optional(b.title, "string") &&
    __cm_optional(b.description, "string") && __cm_optional(b.mimeType, "string") &&
    (b.size === undefined || b.size === null || __cm_is_i64(b.size)) &&
    (b.icons === undefined || b.icons === null || __cm_is_array(b.icons));
}

function __cm_is_resource(b) {
  const r = b.resource;
  return __cm_is_record(r) && typeof r.uri === "string" && __cm_optional(r.mimeType, "string") &&
    (typeof r.text === "string" || typeof r.blob === "string");
}

function __cm_media_block_item(b, kind) {
  const data = b.data;
  if (typeof data !== "string") throw CONTENT_EXPECTS;
  const camel = __cm_has_own(b, "mimeType");
  if (camel && __cm_has_own(b, "mime_type")) throw CONTENT_EXPECTS;  // one field, two names
  const mime = camel ? b.mimeType : b.mime_type;
  if (!__cm_optional(mime, "string")) throw CONTENT_EXPECTS;
  const url = __cm_data_url(data, typeof mime === "string" ? mime : "application/octet-stream");
  if (kind === "audio") return __cm_item("input_audio", "audio_url", url);
  return __cm_image_record(url, __cm_meta_detail(b));
}

function __cm_content_block(block) {
  if (block === undefined) throw CONTENT_EXPECTS;
  const json = __cm_block_text(block);
  const parsed = __cm_parse_block(json);
  if (!__cm_is_record(parsed)) throw CONTENT_EXPECTS;
  const type = parsed.type;
  if (type === "text") {
    if (typeof parsed.text !== "string") throw CONTENT_EXPECTS;
    const meta = parsed._meta;
    if (__cm_is_record(meta) && meta["codex/encryptedContent"] === true) throw "content cannot emit encrypted MCP text";
    __cm_emit(__cm_item("input_text", "text", parsed.text));
  } else if (type === "image" || type === "audio") {
    __cm_emit(__cm_media_block_item(parsed, type));
  } else if ((type === "resource_link" && __cm_is_resource_link(parsed)) ||
      (type === "resource" && __cm_is_resource(parsed))) {
    __cm_emit(__cm_item("input_text", "text", json));
  } else {
    throw CONTENT_EXPECTS;
  }
}

function __cm_content(value) {
  const iterate = typeof value === "string" || value === undefined || value === null
    ? undefined : value[__cm_iterator_key];
  if (typeof iterate !== "function") return void __cm_content_block(value);
  // The cell's own iterable, iterated the way a cell iterates it (Codex's host does
  // too): its iterator method read once, the iterator closed when a block is refused.
  const blocks = {
    __proto__: null,
    [__cm_iterator_key]: function __cm_blocks() { return __cm_apply(iterate, value, __cm_list()); },
  };
  for (const block of blocks) __cm_content_block(block);
}

function __cm_notify(value) {
  const text = __cm_to_text(value);
  if (__cm_trim(text) === "") throw "notify expects non-empty text";
  __cm_call("notify", __cm_quote(text));
}
