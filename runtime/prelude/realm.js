// The notebook realm: one context runs every cell of a session. Evaluated once, after the
// parts every cell shares (intrinsics, stack and error texts, JSON, Intl, formatting); the
// parts of one cell (its helpers and their state) are the body of __cm_cell_factory,
// which the realm thread calls once per cell (runtime/realm.py).

// The realm's host call: ops of a cell are prefixed with "<cell id>|", or with
// "<cell id>@<ended cell id>|" while a helper of an ended cell acts for it (realm_cell.js).
const __cm_realm_host = __cm_host;
// Cells are scripts with a one-line header (runtime/notebook_cell.py).
__cm_line_offset = 1;

// The cells still running, in start order: the helpers of a cell that has ended act for
// the last of them (as ipykernel sends a background thread's output to the latest cell).
const __cm_live_cells = __cm_list();

// The id of the ended cell whose helper runs now (it acts for __cm_current_cell()), else
// undefined. The host calls made meanwhile carry it: the call came from a function that
// cell declared, which any running cell's code may have called (promise jobs of all cells
// share one queue), so it may not ask a person in the name of the cell it acts for.
let __cm_ended_caller = undefined;

function __cm_current_cell() {
  return __cm_live_cells.length > 0 ? __cm_live_cells[__cm_live_cells.length - 1] : undefined;
}

function __cm_cell_started(cell) {
  __cm_push(__cm_live_cells, cell);
}

function __cm_cell_ended(cell) {
  if (cell.ended) return;
  cell.ended = true;
  let j = 0;
  for (let i = 0; i < __cm_live_cells.length; i++) {
    if (__cm_live_cells[i] !== cell) __cm_live_cells[j++] = __cm_live_cells[i];
  }
  __cm_live_cells.length = j;
}

// A rich content item (its `data` a MIME bundle) as JSON text: a bundle JSON cannot hold
// keeps only its text.
function __cm_rich_item_json(type, bundle) {
  let data;
  try {
    data = __cm_json_stringify(bundle);
  } catch (e) {
    __cm_end_if_out_of_memory(e);
    data = undefined;
  }
  if (typeof data !== "string") data = "{\"text/plain\":" + __cm_quote(__cm_String(bundle["text/plain"])) + "}";
  return "{\"type\":" + __cm_quote(type) + ",\"data\":" + data + ",\"metadata\":{}}";
}
