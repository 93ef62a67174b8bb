import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { MemoryFormationModel } from '../formation/formation-model.interface.js';
import { type ResolvedFormation, isFormationModel } from '../formation/formation.options.js';
import { LlmFormationModel } from '../formation/llm.formation-model.js';
import { PlainStatementsFormationModel } from '../formation/plain-statements.formation-model.js';
import type { KernelEngine } from '../kernel/kernel-engine.js';
import { createLlmAdapter } from '../llm/create-llm-adapter.js';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import type { LlmOptions } from '../llm/llm-options.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { ReplayCache } from './runs/replay-cache.js';
import type { TurnFormationParts } from './formation-turns.js';
import { TurnFormation } from './turn-formation.js';

/**
 * The agent's formation (its `formation` option, resolved), or `undefined` when it is off or the long-term tier
 * is absent; its model resolved and ready (a missing provider package fails the start).
 */
export async function createTurnFormation(
  resolved: ResolvedFormation | undefined,
  longterm: LongtermMemoryService | undefined,
  cache: ReplayCache,
  engine: KernelEngine,
  parts: TurnFormationParts = {},
): Promise<TurnFormation | undefined> {
  if (!resolved) return undefined;
  if (!longterm)
    throw new InvalidModuleOptionsError(
      'AgentModule',
      'formation',
      'needs the long-term tier: import LongtermMemoryModule (and leave longterm on)',
    );
  const { model } = resolved;
  let formationModel: MemoryFormationModel;
  if (model === 'plain-statements') formationModel = new PlainStatementsFormationModel();
  else if (isFormationModel(model)) formationModel = model;
  else {
    const adapter =
      model === 'agent'
        ? engine.llm
        : typeof (model as Partial<LlmAdapter>).chat === 'function'
          ? (model as LlmAdapter)
          : createLlmAdapter(model as LlmOptions, process.env, {
              moduleName: 'AgentModule',
              option: 'formation.model',
            });
    await adapter.ready?.();
    formationModel = new LlmFormationModel(adapter);
  }
  return new TurnFormation(longterm, cache, formationModel, resolved, parts);
}
