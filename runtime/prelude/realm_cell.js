// One cell of the realm (the start of __cm_cell_factory's body): its host calls carry
// its id (and the ended cell whose helper acts for it, realm.js's __cm_ended_caller), its
// configuration (tools, source, helper names, whether it has a value) and whether it ran
// exit().

const __cm_cell_prefix = __cm_cell_id + "|";
const __cm_host = function __cm_cell_host(op, arg) {
  if (__cm_ended_caller !== undefined) return __cm_realm_host(__cm_cell_id + "@" + __cm_ended_caller + "|" + op, arg);
  return __cm_realm_host(__cm_cell_prefix + op, arg);
};
const __cm_config = __cm_json_parse_intrinsic(__cm_cell_config);
const __cm_cell_lines = __cm_split(__cm_String(__cm_config.source), "\n");
let __cm_exiting = false;
