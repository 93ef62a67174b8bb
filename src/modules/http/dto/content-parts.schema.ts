/** An OpenAPI schema object (the subset used here). */
type SchemaObject = Record<string, unknown>;

const source = {
  url: { type: 'string', format: 'uri', description: 'An http(s) URL (exactly one of url, data)' },
  data: { type: 'string', format: 'byte', description: 'Inline base64 (at most 5 MiB decoded)' },
} as const;

/** The OpenAPI schema of a message's content parts (text, image, file, reasoning). */
export const MESSAGE_PARTS_SCHEMA: SchemaObject = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: {
    oneOf: [
      {
        type: 'object',
        required: ['type', 'text'],
        properties: { type: { type: 'string', enum: ['text'] }, text: { type: 'string' } },
      },
      {
        type: 'object',
        required: ['type'],
        properties: {
          type: { type: 'string', enum: ['image'] },
          ...source,
          mediaType: { type: 'string', example: 'image/png', description: 'Required with data' },
        },
      },
      {
        type: 'object',
        required: ['type', 'mediaType'],
        properties: {
          type: { type: 'string', enum: ['file'] },
          ...source,
          mediaType: { type: 'string', example: 'application/pdf' },
          filename: { type: 'string' },
        },
      },
      {
        type: 'object',
        required: ['type', 'text'],
        description: "An assistant's reasoning",
        properties: {
          type: { type: 'string', enum: ['reasoning'] },
          text: { type: 'string' },
          providerMetadata: { type: 'object', additionalProperties: true },
        },
      },
    ],
  },
};
