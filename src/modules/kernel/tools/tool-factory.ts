import { Ajv } from 'ajv';
import { InvalidToolError } from '../errors/kernel.errors.js';
import type {
  KernelToolDefinition,
  KernelToolOptions,
  ToolHandler,
} from '../interfaces/kernel-tool.interface.js';
import { PlainKernelTool, type RegisteredTool } from './registered-tool.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** One JSON Schema compiler per kernel; schemas compile once, at bootstrap. */
export function createSchemaCompiler(): Ajv {
  return new Ajv({ allErrors: true, strict: false });
}

/** Builds a tool from a `@KernelTool()` method of a provider instance. */
export function toolFromMethod(
  ajv: Ajv,
  options: KernelToolOptions,
  instance: object,
  methodName: string,
): RegisteredTool {
  const method = (instance as Record<string, ToolHandler>)[methodName]!;
  const targetClass = instance.constructor as RegisteredTool['targetClass'];
  return build(
    ajv,
    options,
    method.bind(instance),
    targetClass,
    method as RegisteredTool['targetHandler'],
    `${targetClass.name}.${methodName}`,
  );
}

/** Builds a tool from a plain definition object. */
export function toolFromDefinition(ajv: Ajv, definition: KernelToolDefinition): RegisteredTool {
  if (typeof definition.handler !== 'function')
    throw new InvalidToolError(String(definition.name), 'handler must be a function');
  return build(
    ajv,
    definition,
    definition.handler,
    PlainKernelTool,
    definition.handler as RegisteredTool['targetHandler'],
    `plain tool "${definition.name}"`,
  );
}

function build(
  ajv: Ajv,
  options: KernelToolOptions,
  invoke: ToolHandler,
  targetClass: RegisteredTool['targetClass'],
  targetHandler: RegisteredTool['targetHandler'],
  origin: string,
): RegisteredTool {
  if (typeof options.name !== 'string' || !NAME.test(options.name)) {
    throw new InvalidToolError(String(options.name), 'name must match [A-Za-z0-9_-]{1,64}');
  }
  if (typeof options.description !== 'string')
    throw new InvalidToolError(options.name, 'description must be a string');
  if (typeof options.parameters !== 'object' || options.parameters === null) {
    throw new InvalidToolError(options.name, 'parameters must be a JSON Schema object');
  }
  if (
    options.timeoutMs !== undefined &&
    !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)
  ) {
    throw new InvalidToolError(options.name, 'timeoutMs must be a positive integer');
  }
  let validate;
  try {
    validate = ajv.compile(options.parameters);
  } catch (error) {
    throw new InvalidToolError(
      options.name,
      `parameters is not a valid JSON Schema: ${(error as Error).message}`,
    );
  }
  return {
    spec: { name: options.name, description: options.description, parameters: options.parameters },
    serial: options.serial ?? false,
    timeoutMs: options.timeoutMs,
    validate,
    invoke,
    targetClass,
    targetHandler,
    origin,
    options,
  };
}
