/**
 * The JSON Schema subset our tool inputs use, and a validator for it. The
 * schema objects are sent to the API verbatim (as `input_schema`), so their
 * key order is fixed by how they are written: type, properties, required,
 * additionalProperties; per property: type, description, bounds.
 */

export interface StringProperty {
  readonly type: 'string';
  readonly description: string;
  readonly minLength?: number;
}

export interface IntegerProperty {
  readonly type: 'integer';
  readonly description: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

export interface BooleanProperty {
  readonly type: 'boolean';
  readonly description: string;
}

export type PropertySchema = StringProperty | IntegerProperty | BooleanProperty;

export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, PropertySchema>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

export type ValidationResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly problems: readonly string[] };

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/** Problem with one property value, or undefined when it conforms. */
function checkProperty(name: string, p: PropertySchema, v: unknown): string | undefined {
  switch (p.type) {
    case 'string':
      if (typeof v !== 'string') return `\`${name}\` must be a string, got ${describeValue(v)}`;
      if (p.minLength !== undefined && v.length < p.minLength) return `\`${name}\` must not be empty`;
      return undefined;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v))
        return `\`${name}\` must be an integer, got ${describeValue(v)}`;
      if (p.minimum !== undefined && v < p.minimum) return `\`${name}\` must be ≥ ${p.minimum}, got ${v}`;
      if (p.maximum !== undefined && v > p.maximum) return `\`${name}\` must be ≤ ${p.maximum}, got ${v}`;
      return undefined;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `\`${name}\` must be a boolean, got ${describeValue(v)}`;
  }
}

/**
 * Validate `input` against `schema`, listing every problem. A `null` optional
 * property counts as absent (models sometimes send null for "not given") and is
 * dropped from the returned value.
 */
export function validateInput(schema: ObjectSchema, input: unknown): ValidationResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [`input must be a JSON object, got ${describeValue(input)}`] };
  }
  const problems: string[] = [];
  const value: Record<string, unknown> = {};
  const given = input as Record<string, unknown>;
  const required = new Set(schema.required);
  for (const [name, v] of Object.entries(given)) {
    const p = schema.properties[name];
    if (!p) {
      problems.push(`unknown property \`${name}\``);
      continue;
    }
    if (v === null && !required.has(name)) continue;
    const problem = checkProperty(name, p, v);
    if (problem) problems.push(problem);
    else value[name] = v;
  }
  for (const name of schema.required) {
    if (given[name] === undefined)
      problems.push(`missing required \`${name}\` (${schema.properties[name]?.type ?? 'value'})`);
  }
  return problems.length ? { ok: false, problems } : { ok: true, value };
}

/** `{path: string, start_line?: integer}`: the expected shape, for error messages. */
export function schemaSignature(schema: ObjectSchema): string {
  const required = new Set(schema.required);
  const parts = Object.entries(schema.properties).map(
    ([name, p]) => `${name}${required.has(name) ? '' : '?'}: ${p.type}`,
  );
  return `{${parts.join(', ')}}`;
}
