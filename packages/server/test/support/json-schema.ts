/**
 * A small JSON Schema validator, the subset the OpenAPI document uses: type
 * (one or a list, with integer), properties, required, additionalProperties
 * (false or a schema), items, enum, anyOf, minimum, maximum, maxItems and $ref to
 * `#/components/...`. Returns the list of violations (empty when valid).
 */
type Schema = Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function resolveRef(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown>)[part];
  if (node === undefined) throw new Error(`dangling $ref ${ref}`);
  return node as Schema;
}

export function validate(root: Schema, schema: Schema, value: unknown, at = '$'): string[] {
  if (typeof schema['$ref'] === 'string') return validate(root, resolveRef(root, schema['$ref']), value, at);
  const errors: string[] = [];
  if (Array.isArray(schema['anyOf'])) {
    const fits = (schema['anyOf'] as Schema[]).some((s) => validate(root, s, value, at).length === 0);
    if (!fits) errors.push(`${at}: matches none of anyOf`);
  }
  if (schema['type'] !== undefined) {
    const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) {
      errors.push(`${at}: expected ${types.join('|')}, got ${t}`);
      return errors;
    }
  }
  if (Array.isArray(schema['enum']) && !(schema['enum'] as unknown[]).includes(value)) errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) errors.push(`${at}: below minimum`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) errors.push(`${at}: above maximum`);
  }
  if (Array.isArray(value)) {
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems']) errors.push(`${at}: more than maxItems`);
    if (schema['items'] !== undefined) value.forEach((v, i) => errors.push(...validate(root, schema['items'] as Schema, v, `${at}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const r of (schema['required'] ?? []) as string[]) if (!(r in obj)) errors.push(`${at}: missing ${r}`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k] !== undefined) errors.push(...validate(root, props[k], v, `${at}.${k}`));
      else if (schema['additionalProperties'] === false) errors.push(`${at}: unexpected property ${k}`);
      else if (typeof schema['additionalProperties'] === 'object') errors.push(...validate(root, schema['additionalProperties'] as Schema, v, `${at}.${k}`));
    }
  }
  return errors;
}
