// Content helpers: text, image, audio, generatedImage, content, notify.

// ---- content helpers --------------------------------------------------------------

const IMAGE_EXPECTS = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
const DETAILS = ["auto", "low", "high", "original"];

function __cm_detail(d) {
  if (d === undefined || d === null) return undefined;
  if (typeof d !== "string") throw "image detail must be a string when provided";
  const lower = d.toLowerCase();
  if (!DETAILS.includes(lower)) throw "image detail must be one of: auto, low, high, original";
  return lower;
}

function __cm_block_url(block, kind) {
  const data = block.data;
  if (typeof data !== "string" || data === "") throw kind + " expected MCP " + kind + " data";
  let mime = block.mimeType !== undefined ? block.mimeType : block.mime_type;
  if (typeof mime !== "string" || mime === "") mime = "application/octet-stream";
  return data.startsWith("data:") ? data : "data:" + mime + ";base64," + data;
}

function __cm_image_item(value, override) {
  let url;
  let embedded;
  if (typeof value === "string") {
    url = value;
  } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    if (typeof value.image_url === "string") {
      url = value.image_url;
      embedded = __cm_detail(value.detail);
    } else if (typeof value.type === "string") {
      if (value.type !== "image") throw "image only accepts MCP image blocks, got " + JSON.stringify(value.type);
      url = __cm_block_url(value, "image");
      const meta = value._meta;
      const d = meta !== null && typeof meta === "object" ? meta["codex/imageDetail"] : undefined;
      if (typeof d === "string" && DETAILS.includes(d.toLowerCase())) embedded = d.toLowerCase();
    } else {
      throw IMAGE_EXPECTS;
    }
  } else {
    throw IMAGE_EXPECTS;
  }
  if (!url) throw IMAGE_EXPECTS;
  const colon = url.indexOf(":");
  const scheme = colon < 0 ? "" : url.slice(0, colon).toLowerCase();
  if (scheme === "http" || scheme === "https") {
    throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
  }
  if (scheme !== "data") throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
  const detail = override !== undefined ? override : embedded !== undefined ? embedded : "high";
  return { type: "input_image", image_url: url, detail };
}

function __cm_text() {
  __cm_emit({ type: "input_text", text: __cm_to_text(arguments[0]) });
}

function __cm_image() {
  const override = __cm_detail(arguments[1]);
  __cm_emit(__cm_image_item(arguments[0], override));
}

function __cm_audio() {
  const value = arguments[0];
  const expects = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
  let url;
  if (typeof value === "string") {
    url = value;
  } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    if (typeof value.audio_url === "string") url = value.audio_url;
    else if (typeof value.type === "string") {
      if (value.type !== "audio") throw "audio only accepts MCP audio blocks, got " + JSON.stringify(value.type);
      url = __cm_block_url(value, "audio");
    } else throw expects;
  } else throw expects;
  if (!url) throw expects;
  if (!url.toLowerCase().startsWith("data:")) throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
  __cm_emit({ type: "input_audio", audio_url: url });
}

function __cm_generated_image() {
  const result = arguments[0];
  if (result === null || typeof result !== "object" || Array.isArray(result)) {
    throw "generatedImage expects an image generation result object";
  }
  const hint = result.output_hint;
  if (hint !== undefined && hint !== null && typeof hint !== "string") {
    throw "generatedImage output_hint must be a string when provided";
  }
  __cm_emit(__cm_image_item(result, undefined));
  if (typeof hint === "string") __cm_emit({ type: "input_text", text: hint });
}

// content(block | block[]): MCP content blocks (text, image, audio), as recorded from 0.171.
function __cm_content_block(block) {
  const expects = "content expects one MCP ContentBlock";
  if (block === null || typeof block !== "object") throw expects;
  if (block.type === "text" && typeof block.text === "string") {
    __cm_emit({ type: "input_text", text: block.text });
  } else if (block.type === "image") {
    __cm_emit(__cm_image_item(block, undefined));
  } else if (block.type === "audio") {
    __cm_audio(block);
  } else {
    throw expects;
  }
}

function __cm_content() {
  const value = arguments[0];
  if (Array.isArray(value)) {
    for (const block of value) __cm_content_block(block);
  } else {
    __cm_content_block(value);
  }
}

function __cm_notify() {
  const text = __cm_to_text(arguments[0]);
  if (text.trim() === "") throw "notify expects non-empty text";
  __cm_call("notify", JSON.stringify(text));
}
