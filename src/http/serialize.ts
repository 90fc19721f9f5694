import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { z } from 'zod';

/**
 * Response serialisation without a second validation pass. Each route's Zod
 * response schema compiles once into a picker that copies only the keys the
 * schema declares (what Zod's `encode` kept: a row with extra fields, a password
 * hash say, never reaches the wire), and JSON.stringify writes the result. Values
 * are not checked: services build the final shape themselves, and the test suite
 * checks every response against its schema (test/helpers/app.ts). Response schemas
 * therefore carry no codecs or transforms (a compile error names the route).
 * A frozen payload's JSON is reused: see below.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema, method, url }) => {
  let pick: Picker | null;
  try {
    pick = pickerOf(resolveSchema(schema));
  } catch (error) {
    throw new Error(`Response schema of ${method} ${url}: ${(error as Error).message}`, { cause: error });
  }
  const write = pick
    ? (data: unknown) => JSON.stringify(data == null ? data : pick(data))
    : (data: unknown) => JSON.stringify(data);
  // A frozen payload is a cached answer that never changes (src/lib/deep-freeze.ts): its
  // JSON is written once per route and kept as long as the answer itself.
  const written = new WeakMap<object, string>();
  return (data) => {
    if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return write(data);
    let json = written.get(data);
    if (json === undefined) {
      json = write(data);
      written.set(data, json);
    }
    return json;
  };
};

function resolveSchema(schema: unknown): z.ZodType {
  if (schema instanceof z.ZodType) return schema;
  throw new Error('is not a Zod schema');
}

/** Copies the parts of a value its schema declares; null where the value goes out as it is. */
type Picker = (value: unknown) => unknown;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

const compiled = new WeakMap<z.core.$ZodType, Picker | null>();

/** Null when the schema holds nothing to strip (scalars, enums, arrays of them), so the value is emitted as it is. */
function pickerOf(schema: z.core.$ZodType): Picker | null {
  if (compiled.has(schema)) return compiled.get(schema)!;
  // A recursive schema (z.lazy) reaches itself while compiling: it resolves through this slot.
  let resolved: Picker | null = null;
  compiled.set(schema, (value) => (resolved ? resolved(value) : value));
  resolved = build(schema);
  compiled.set(schema, resolved);
  return resolved;
}

const orNull =
  (pick: Picker): Picker =>
  (value) =>
    value == null ? value : pick(value);

function build(schema: z.core.$ZodType): Picker | null {
  const def = schema._zod.def as Def;
  switch (def.type) {
    case 'object':
      return objectPicker(def as unknown as z.core.$ZodObjectDef);
    case 'array': {
      const element = pickerOf(def.element as z.core.$ZodType);
      return element && ((value) => (Array.isArray(value) ? value.map(orNull(element)) : value));
    }
    case 'record': {
      const entry = pickerOf(def.valueType as z.core.$ZodType);
      if (!entry) return null;
      const pickEntry = orNull(entry);
      return (value) => {
        const out: Record<string, unknown> = {};
        for (const key of Object.keys(value as object))
          out[key] = pickEntry((value as Record<string, unknown>)[key]);
        return out;
      };
    }
    case 'nullable':
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'catch':
    case 'readonly': {
      // Encoding passes these straight to the inner schema (defaults apply only when parsing).
      const inner = pickerOf(def.innerType as z.core.$ZodType);
      return inner && orNull(inner);
    }
    case 'lazy':
      return pickerOf((def.getter as () => z.core.$ZodType)());
    case 'union':
      return unionPicker(schema, def as unknown as z.core.$ZodUnionDef & { discriminator?: string });
    case 'pipe': {
      if (def.transform || def.reverseTransform) throw new Error('a codec changes values on output');
      // Encoding runs the output side, then the input side.
      const output = pickerOf(def.out as z.core.$ZodType);
      const input = pickerOf(def.in as z.core.$ZodType);
      if (!output || !input) return output ?? input;
      return (value) => input(output(value));
    }
    case 'transform':
      throw new Error('a transform cannot run on output; the service builds the final shape');
    case 'intersection':
    case 'tuple':
    case 'map':
    case 'set':
    case 'promise':
    case 'function':
      throw new Error(`z.${def.type} is not supported in response schemas`);
    default:
      // Scalars, enums, literals, dates, unknown, any, custom: nothing to strip.
      return null;
  }
}

function objectPicker(def: z.core.$ZodObjectDef): Picker {
  const keys = Object.keys(def.shape);
  const pickers = keys.map((key) => pickerOf(def.shape[key]!));
  for (const key of keys) if (key === '__proto__') throw new Error('a key named __proto__');
  // One object literal in schema order, compiled once: the order Zod's output had.
  const fields = keys.map((key, i) => {
    const read = `v[${JSON.stringify(key)}]`;
    return `${JSON.stringify(key)}: ${pickers[i] ? `(x = ${read}) == null ? x : p[${i}](x)` : read}`;
  });
  const known = new Function('p', `return (v) => { let x; return { ${fields.join(', ')} }; };`)(
    pickers,
  ) as Picker;
  const catchall = def.catchall;
  // z.strictObject (never) and z.object (none) emit declared keys only.
  if (!catchall || catchall._zod.def.type === 'never') return known;
  const rest = pickerOf(catchall);
  const declared = new Set(keys);
  return (value) => {
    const out = known(value) as Record<string, unknown>;
    for (const key of Object.keys(value as object)) {
      if (declared.has(key)) continue;
      const field = (value as Record<string, unknown>)[key];
      out[key] = rest && field != null ? rest(field) : field;
    }
    return out;
  };
}

function unionPicker(
  schema: z.core.$ZodType,
  def: z.core.$ZodUnionDef & { discriminator?: string },
): Picker | null {
  const options = def.options.map((option) => pickerOf(option));
  if (options.every((option) => option === null)) return null;
  const { discriminator } = def;
  if (discriminator) {
    const byTag = new Map<unknown, Picker | null>();
    def.options.forEach((option, i) => {
      for (const tag of option._zod.propValues?.[discriminator] ?? []) byTag.set(tag, options[i]!);
    });
    return (value) => {
      const tag = (value as Record<string, unknown>)[discriminator];
      if (!byTag.has(tag))
        throw new Error(`no option of the response schema has ${discriminator} ${String(tag)}`);
      const pick = byTag.get(tag);
      return pick ? pick(value) : value;
    };
  }
  // Which option a value belongs to takes validation; such unions keep Zod's encode (none is hot).
  return (value) => z.encode(schema, value);
}
