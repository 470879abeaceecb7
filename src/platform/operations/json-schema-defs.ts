/**
 * Shared definitions inside one JSON Schema: a subschema that recurs is written once under `$defs`
 * and referenced with `$ref` where it occurs, when that makes the schema shorter (see
 * json-schema-compact.ts).
 */
import {
  isObject,
  type JsonObject,
  type JsonValue,
  mapSubschemas,
  ONE_SCHEMA,
  SCHEMA_LIST,
  SCHEMA_MAP,
  someNode,
} from './json-schema-walk.ts';

/** Where hoisted definitions go, and how they are referenced. */
const DEFS = '$defs';
const refTo = (name: string): JsonObject => ({ $ref: `#/${DEFS}/${name}` });

interface Repeat {
  readonly node: JsonObject;
  /** Equal for equal subschemas (see `Shapes`). */
  readonly key: string;
  /** Length of its JSON text. */
  readonly length: number;
  count: number;
  /** The property names it occurs under, and how often (its definition is named after the commonest). */
  readonly names: Map<string, number>;
}

/**
 * Writes recurring subschemas once under `$defs`, the one that saves most first, until no rewrite
 * makes the schema shorter. A definition is named after the property it most often describes.
 */
export function hoistRepeats(root: JsonObject): JsonObject {
  // References other than to a definition (`#/properties/...`) would break when a subschema moves.
  if (
    someNode(root, (n) => typeof n.$ref === 'string' && n.$ref !== '#' && !n.$ref.startsWith(`#/${DEFS}/`))
  ) {
    return root;
  }
  const { [DEFS]: existing, ...rest } = root;
  let body: JsonObject = existing === undefined ? root : rest;
  const defs = new Map<string, JsonObject>(
    Object.entries(isObject(existing) ? existing : {}).filter((e): e is [string, JsonObject] =>
      isObject(e[1]),
    ),
  );
  for (;;) {
    const shapes = new Shapes();
    const best = bestRepeat([body, ...defs.values()], defs, shapes);
    if (!best) break;
    const ref = refTo(best.name);
    const replace = (node: JsonObject): JsonObject =>
      mapSubschemas(node, (child) =>
        !isObject(child) ? child : shapes.of(child).key === best.key ? ref : replace(child),
      );
    body = replace(body);
    for (const [name, def] of defs) defs.set(name, replace(def));
    defs.set(best.name, best.node);
  }
  return defs.size ? { ...body, [DEFS]: Object.fromEntries(defs) } : body;
}

/** The repeat whose definition saves most, if any saves anything. */
function bestRepeat(
  roots: readonly JsonObject[],
  defs: ReadonlyMap<string, JsonObject>,
  shapes: Shapes,
): { name: string; node: JsonObject; key: string } | undefined {
  const repeats = new Map<string, Repeat>();
  for (const root of roots) {
    // Each root is the schema itself or a definition: counted are the subschemas inside them.
    eachSubschema(root, undefined, (node, name) => {
      const { key, length } = shapes.of(node);
      const seen = repeats.get(key) ?? { node, key, length, count: 0, names: new Map<string, number>() };
      seen.count++;
      if (name !== undefined) seen.names.set(name, (seen.names.get(name) ?? 0) + 1);
      repeats.set(key, seen);
    });
  }
  let best: { name: string; node: JsonObject; key: string; saving: number } | undefined;
  for (const repeat of repeats.values()) {
    if (repeat.count < 2 || '$ref' in repeat.node) continue;
    const name = uniqueName(nameOf(repeat), defs);
    const refSize = JSON.stringify(refTo(name)).length;
    // Written once as `"name":{...},` plus a reference at each use, against a copy at each use.
    const saving = repeat.count * repeat.length - (repeat.length + name.length + 4) - repeat.count * refSize;
    if (saving > 0 && (!best || saving > best.saving)) {
      best = { name, node: repeat.node, key: repeat.key, saving };
    }
  }
  return best;
}

/**
 * Structural identity of subschemas: equal subschemas get the same key, built from their
 * subschemas' numbers rather than their whole text, with the length of their JSON text.
 */
class Shapes {
  readonly #of = new Map<JsonObject, { key: string; length: number }>();
  readonly #numbers = new Map<string, number>();

  of(node: JsonObject): { key: string; length: number } {
    const known = this.#of.get(node);
    if (known) return known;
    const parts: string[] = [];
    // The JSON text is `{` + entries joined by `,` + `}`: 2 + (entries - 1) characters besides them.
    let length = 1 + Math.max(1, Object.keys(node).length);
    const child = (value: JsonValue): string => {
      if (!isObject(value)) {
        const text = JSON.stringify(value);
        length += text.length;
        return text;
      }
      const shape = this.of(value);
      length += shape.length;
      return `#${this.#number(shape.key)}`;
    };
    for (const [key, value] of Object.entries(node)) {
      const name = JSON.stringify(key);
      length += name.length + 1;
      let text: string;
      if (ONE_SCHEMA.has(key) && !Array.isArray(value)) text = child(value);
      else if ((ONE_SCHEMA.has(key) || SCHEMA_LIST.has(key)) && Array.isArray(value)) {
        length += 1 + Math.max(1, value.length);
        text = `[${value.map(child).join(',')}]`;
      } else if (SCHEMA_MAP.has(key) && isObject(value)) {
        const entries = Object.entries(value);
        length += 1 + Math.max(1, entries.length);
        text = `{${entries
          .map(([k, v]) => {
            const property = JSON.stringify(k);
            length += property.length + 1;
            return `${property}:${child(v)}`;
          })
          .join(',')}}`;
      } else {
        text = JSON.stringify(value);
        length += text.length;
      }
      parts.push(`${name}:${text}`);
    }
    const shape = { key: `{${parts.join(',')}}`, length };
    this.#of.set(node, shape);
    return shape;
  }

  #number(key: string): number {
    let n = this.#numbers.get(key);
    if (n === undefined) {
      n = this.#numbers.size;
      this.#numbers.set(key, n);
    }
    return n;
  }
}

/** Every subschema below `node` (not `node` itself), with the property name it describes, if any. */
function eachSubschema(
  node: JsonObject,
  name: string | undefined,
  record: (node: JsonObject, name: string | undefined) => void,
): void {
  for (const [key, value] of Object.entries(node)) {
    if (key === DEFS) continue;
    const visitChild = (child: JsonValue, childName: string | undefined) => {
      if (!isObject(child)) return;
      record(child, childName);
      eachSubschema(child, childName, record);
    };
    if (ONE_SCHEMA.has(key)) {
      const childName = key === 'items' && name ? `${name}_item` : undefined;
      if (Array.isArray(value)) for (const child of value) visitChild(child, childName);
      else visitChild(value, childName);
    } else if (SCHEMA_LIST.has(key) && Array.isArray(value)) {
      for (const child of value) visitChild(child, name);
    } else if (SCHEMA_MAP.has(key) && isObject(value)) {
      for (const [property, child] of Object.entries(value)) visitChild(child, property);
    }
  }
}

function nameOf(repeat: Repeat): string {
  let chosen = 'shape';
  let most = 0;
  for (const [name, count] of repeat.names) {
    if (count > most) {
      chosen = name;
      most = count;
    }
  }
  return chosen.replace(/[^A-Za-z0-9_]/g, '_') || 'shape';
}

function uniqueName(base: string, taken: ReadonlyMap<string, unknown>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
}
