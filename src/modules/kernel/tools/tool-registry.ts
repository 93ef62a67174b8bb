import type { Ajv } from 'ajv';
import { DuplicateToolError, UnknownToolError } from '../errors/kernel.errors.js';
import type { KernelToolDefinition } from '../interfaces/kernel-tool.interface.js';
import type { ToolSpec } from '../../llm/interfaces/llm.interface.js';
import type { RegisteredTool } from './registered-tool.js';
import { toolFromDefinition } from './tool-factory.js';

/**
 * A selection of tools: names pick a subset of the known ones (none named: all of them), and plain
 * definitions are added to that. An empty list offers no tools.
 */
export type ToolSelection = ReadonlyArray<string | KernelToolDefinition>;

/**
 * The tools one kernel (or one invoke) offers, by name. Built at bootstrap, where duplicate names
 * and unknown selected names fail; an invoke may narrow it by name or add plain tools.
 */
export class ToolRegistry {
  /** The tools' specs, as sent to the model. */
  readonly specs: ToolSpec[];
  private readonly compiled = new WeakMap<KernelToolDefinition, RegisteredTool>();

  private constructor(
    private readonly tools: ReadonlyMap<string, RegisteredTool>,
    private readonly ajv: Ajv,
  ) {
    this.specs = [...tools.values()].map((tool) => tool.spec);
  }

  /**
   * The kernel's tools (`forRoot({ tools })`): the discovered ones — all, or the named subset when
   * names are listed — plus the plain tool objects listed.
   */
  static build(
    discovered: RegisteredTool[],
    selection: ToolSelection | undefined,
    ajv: Ajv,
  ): ToolRegistry {
    const byName = uniqueByName(discovered);
    return new ToolRegistry(
      uniqueByName(choose(byName, selection, (entry) => toolFromDefinition(ajv, entry))),
      ajv,
    );
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  get size(): number {
    return this.tools.size;
  }

  /** The registry an invoke uses: all of this one, or the named subset, plus its plain tools. */
  select(selection: ToolSelection | undefined): ToolRegistry {
    if (!selection) return this;
    return new ToolRegistry(
      uniqueByName(choose(this.tools, selection, (entry) => this.compile(entry))),
      this.ajv,
    );
  }

  private compile(definition: KernelToolDefinition): RegisteredTool {
    let tool = this.compiled.get(definition);
    if (!tool) {
      tool = toolFromDefinition(this.ajv, definition);
      this.compiled.set(definition, tool);
    }
    return tool;
  }
}

/**
 * The named tools of `known` (all of them if none is named) and the plain ones, in order. An empty
 * selection offers no tool at all: narrowing to nothing must never widen to everything.
 */
function choose(
  known: ReadonlyMap<string, RegisteredTool>,
  selection: ToolSelection | undefined,
  compile: (definition: KernelToolDefinition) => RegisteredTool,
): RegisteredTool[] {
  if (selection === undefined) return [...known.values()];
  const chosen = selection.map((entry) =>
    typeof entry === 'string' ? pick(known, entry) : compile(entry),
  );
  const namesSome = selection.some((entry) => typeof entry === 'string');
  return namesSome || selection.length === 0 ? chosen : [...known.values(), ...chosen];
}

function pick(known: ReadonlyMap<string, RegisteredTool>, name: string): RegisteredTool {
  const tool = known.get(name);
  if (!tool) throw new UnknownToolError(name);
  return tool;
}

function uniqueByName(tools: RegisteredTool[]): Map<string, RegisteredTool> {
  const byName = new Map<string, RegisteredTool>();
  for (const tool of tools) {
    const existing = byName.get(tool.spec.name);
    if (existing && existing !== tool)
      throw new DuplicateToolError(tool.spec.name, [existing.origin, tool.origin]);
    byName.set(tool.spec.name, tool);
  }
  return byName;
}
