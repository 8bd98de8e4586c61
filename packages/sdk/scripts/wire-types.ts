// Writes the wire types the SDK uses as plain TypeScript declarations, from
// the contract's TypeBox schemas (which are JSON Schema). The published SDK
// then carries its types without depending on @maqam/contract or TypeBox:
// the contract is a build-time input only.

type Schema = {
  type?: string;
  title?: string;
  description?: string;
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  /** The contract's mark of an object whose every member is sent, though the wire marks none required. */
  'x-sent-in-full'?: boolean;
};

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** TypeScript declarations for the named schemas and every titled schema inside them. */
export function wireTypes(roots: Record<string, Schema>): string {
  const declarations = new Map<string, string>();
  const rootByTitle = new Map(Object.entries(roots).map(([name, schema]) => [schema, name]));

  const nameOf = (schema: Schema): string | undefined => rootByTitle.get(schema) ?? schema.title;

  const declare = (name: string, schema: Schema): void => {
    if (declarations.has(name)) return;
    declarations.set(name, ''); // reserve first: schemas may refer to each other
    const doc = schema.description ? `/** ${schema.description} */\n` : '';
    declarations.set(name, schema.type === 'object' && schema.properties
      ? `${doc}export interface ${name} ${objectBody(schema)}`
      : `${doc}export type ${name} = ${typeOf(schema, false)};`);
  };

  const typeOf = (schema: Schema, allowReference = true): string => {
    const name = nameOf(schema);
    if (allowReference && name) {
      declare(name, schema);
      return name;
    }
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
    if (schema.anyOf) return schema.anyOf.map((member) => typeOf(member)).join(' | ');
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return `Array<${schema.items ? typeOf(schema.items) : 'unknown'}>`;
      case 'object': {
        const values = schema.patternProperties ? Object.values(schema.patternProperties)[0] : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
        if (!schema.properties && values) return `Record<string, ${typeOf(values)}>`;
        return objectBody(schema);
      }
      default:
        throw new Error(`wire-types: no TypeScript for schema ${JSON.stringify(schema).slice(0, 200)}`);
    }
  };

  const objectBody = (schema: Schema): string => {
    const required = new Set(schema['x-sent-in-full'] ? Object.keys(schema.properties ?? {}) : (schema.required ?? []));
    const members = Object.entries(schema.properties ?? {}).map(([key, property]) => {
      const doc = property.description && !nameOf(property) ? `  /** ${property.description} */\n` : '';
      const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
      return `${doc}  ${name}${required.has(key) ? '' : '?'}: ${typeOf(property).replace(/\n/g, '\n  ')};`;
    });
    return `{\n${members.join('\n')}\n}`;
  };

  for (const [name, schema] of Object.entries(roots)) declare(name, schema);
  return `// The API's wire types, generated from the contract's schemas by packages/sdk/scripts/wire-types.ts. Do not edit.\n\n${[...declarations.values()].join('\n\n')}\n`;
}
