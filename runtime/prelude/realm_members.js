// Completion in the notebook realm (session/bindings, runtime/bindings.py): the global
// bindings cells declared, and the members of a value reached from one by a path of plain
// data properties. Read from property descriptors, so no getter of user code runs; a proxy
// (whose ownKeys, getOwnPropertyDescriptor and getPrototypeOf traps would run) is skipped:
// every proxy user code makes goes through the realm's Proxy, which records it.

const __cm_proxies = new WeakSet();
const __cm_proxy_add = __cm_uncurry(WeakSet.prototype.add);
const __cm_is_proxy = __cm_uncurry(WeakSet.prototype.has);
const __cm_native_proxy = Proxy;
const __cm_native_revocable = Proxy.revocable;
const __cm_construct = Reflect.construct;
const __cm_own_names = Object.getOwnPropertyNames;
const __cm_member_name_re = /^[A-Za-z_$][\w$]*$/;
const __cm_max_members = 2000;

__cm_define_value(__cm_native_proxy, "revocable", (target, handler) => {
  const made = __cm_invoke(__cm_native_revocable, __cm_native_proxy, target, handler);
  __cm_proxy_add(__cm_proxies, made.proxy);
  return made;
}, true, false, true);
__cm_define_value(globalThis, "Proxy", new __cm_native_proxy(__cm_native_proxy, {
  __proto__: null,
  construct(target, args, newTarget) {
    const made = __cm_construct(target, args, newTarget);
    __cm_proxy_add(__cm_proxies, made);
    return made;
  },
}), true, false, true);

// The names of the global object once the prelude ran: what no cell declared.
const __cm_baseline_names = __cm_record();
{
  const names = __cm_own_names(globalThis);
  for (let i = 0; i < names.length; i++) __cm_baseline_names[names[i]] = true;
}

function __cm_member_kind(descriptor) {
  return __cm_has_own(descriptor, "value") && typeof descriptor.value === "function" ? "function" : "property";
}

// The data descriptor of `key` on `object` or its prototypes, or undefined (an accessor, a
// proxy on the way, no such property).
function __cm_data_descriptor(object, key) {
  for (let o = object; o !== null; o = __cm_get_prototype_of(o)) {
    if (__cm_is_proxy(__cm_proxies, o)) return undefined;
    const descriptor = __cm_own_descriptor(o, key);
    if (descriptor !== undefined) return __cm_has_own(descriptor, "value") ? descriptor : undefined;
  }
  return undefined;
}

// [[name, kind], ...] of `object`'s own and inherited identifier-named properties; `skip`
// names the ones left out (a record).
function __cm_members_of(object, skip) {
  const out = __cm_list();
  const seen = __cm_record();
  for (let o = object; o !== null && out.length < __cm_max_members; o = __cm_get_prototype_of(o)) {
    if (__cm_is_proxy(__cm_proxies, o)) break;
    const names = __cm_own_names(o);
    for (let i = 0; i < names.length && out.length < __cm_max_members; i++) {
      const name = names[i];
      if (seen[name] || skip[name] || !__cm_test(__cm_member_name_re, name)) continue;
      seen[name] = true;
      __cm_push(out, [name, __cm_member_kind(__cm_own_descriptor(o, name))]);
    }
    if (o === globalThis) break;
  }
  return out;
}

// The listing for `pathJson` (a JSON list of property names; [] lists the cells' globals), as
// JSON text; "[]" when the path does not lead to a value through data properties.
function __cm_realm_members(pathJson) {
  const path = __cm_json_parse_intrinsic(pathJson);
  if (path.length === 0) return __cm_json_stringify(__cm_members_of(globalThis, __cm_baseline_names));
  let value = globalThis;
  for (let i = 0; i < path.length; i++) {
    const descriptor = __cm_data_descriptor(value, __cm_String(path[i]));
    if (descriptor === undefined) return "[]";
    value = descriptor.value;
    if (value === null || value === undefined) return "[]";
    if (typeof value !== "object" && typeof value !== "function") value = __cm_Object(value);
  }
  if (__cm_is_proxy(__cm_proxies, value)) return "[]";
  return __cm_json_stringify(__cm_members_of(value, __cm_record()));
}
