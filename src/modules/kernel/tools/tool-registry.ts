import type { Ajv } from 'ajv';
import { DuplicateToolError, UnknownToolError } from '../errors/kernel.errors.js';
import type { KernelToolDefinition } from '../interfaces/kernel-tool.interface.js';
import type { ToolSpec } from '../interfaces/llm.interface.js';
import type { RegisteredTool } from './registered-tool.js';
import { toolFromDefinition } from './tool-factory.js';

/** A selection of tools: names of known ones, and/or plain definitions. */
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
   * Every discovered tool, or only the selected ones (`forRoot({ tools })`): names pick discovered
   * tools, objects add plain tools.
   */
  static build(
    discovered: RegisteredTool[],
    selection: ToolSelection | undefined,
    ajv: Ajv,
  ): ToolRegistry {
    const byName = uniqueByName(discovered);
    if (!selection) return new ToolRegistry(byName, ajv);
    const chosen: RegisteredTool[] = selection.map((entry) => {
      if (typeof entry !== 'string') return toolFromDefinition(ajv, entry);
      const tool = byName.get(entry);
      if (!tool) throw new UnknownToolError(entry);
      return tool;
    });
    return new ToolRegistry(uniqueByName(chosen), ajv);
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  get size(): number {
    return this.tools.size;
  }

  /** The registry an invoke uses: all of this one, or the named subset plus its plain tools. */
  select(selection: ToolSelection | undefined): ToolRegistry {
    if (!selection) return this;
    const chosen = selection.map((entry) => {
      if (typeof entry !== 'string') return this.compile(entry);
      const tool = this.tools.get(entry);
      if (!tool) throw new UnknownToolError(entry);
      return tool;
    });
    return new ToolRegistry(uniqueByName(chosen), this.ajv);
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
