import { FormedMemories } from '../formation/formed-memories.js';
import { EntityProfiles } from '../formation/profile/entity-profiles.js';
import { ProfileSchema } from '../formation/profile/profile-schema.js';
import type { TurnFormation } from './turn-formation.js';
import type { EntityLeases } from '../formation/entity-leases.js';
import { formationContextReader } from './formation-turns.js';
import type { FormationJournal } from './formation-journal.js';
import { createTurnFormation } from './turn-formation.factory.js';
import { resolveFormation } from '../formation/formation.options.js';
import type { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { createKernelEngine } from '../kernel/kernel-engine.factory.js';
import type { KernelEngine } from '../kernel/kernel-engine.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { WorkingMemoryService } from '../working-memory/working-memory.service.js';
import { AgentRunner, DEFAULT_MAX_CONFLICT_RETRIES } from './agent-runner.js';
import type { AgentMemory, AgentRuns } from './agent.providers.js';
import type { AgentModuleOptions } from './agent.options.js';
import { AgentKernelHasMemoryFilterError } from './errors/agent.errors.js';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { DEFAULT_TURN_RECALL } from './turn-recall.js';

/** What the agent's runner is built from besides its options. */
export interface AgentRunnerContext {
  moduleRef: ModuleRef;
  discovery: DiscoveryService;
  scanner: MetadataScanner;
  reflector: Reflector;
  provider: AgentMemory['provider'];
  cache: AgentRuns['cache'];
  longterm?: LongtermMemoryService;
  workingMemory?: WorkingMemoryService;
  /** On a shared run store: where formation jobs wait until done. */
  formationJournal?: FormationJournal;
  /** On a shared run store: the entity leases formation holds across processes. */
  entityLeases?: EntityLeases;
}

/**
 * Builds the agent's kernel — the one given, or one of its `llm`, filters and tools (discovered now
 * that every provider exists) — and the runner that executes turns with it. A kernel with the
 * memory filter is refused: the agent manages memory itself.
 */
export async function buildAgentRunner(
  options: AgentModuleOptions,
  context: AgentRunnerContext,
): Promise<{ engine: KernelEngine; runner: AgentRunner; formation?: TurnFormation }> {
  const engine =
    options.kernel?.engine ??
    (await createKernelEngine(
      {
        llm: options.llm!,
        filters: options.filters,
        tools: options.tools,
        maxToolIterations: options.maxToolIterations,
      },
      {
        moduleRef: context.moduleRef,
        discovery: context.discovery,
        scanner: context.scanner,
        reflector: context.reflector,
        moduleName: 'AgentModule',
      },
    ));
  if (engine.memory) throw new AgentKernelHasMemoryFilterError();
  const formation = resolveFormation(options.formation);
  assertTierRecalls(options, formation !== undefined, context.longterm);
  // The profile's schema compiles now: a schema Ajv refuses fails the start.
  const profiles =
    formation?.profile && context.longterm
      ? new EntityProfiles(context.longterm, new ProfileSchema(formation.profile))
      : undefined;
  const runner = new AgentRunner({
    engine,
    provider: context.provider,
    cache: context.cache,
    systemPrompt: options.systemPrompt,
    conflictPolicy: options.conflictPolicy ?? 'reject',
    maxConflictRetries: DEFAULT_MAX_CONFLICT_RETRIES,
    maxToolIterations: options.maxToolIterations,
    events: options.events,
    longterm: context.longterm,
    workingMemory: context.workingMemory,
    ...(options.recall
      ? { recall: { ...DEFAULT_TURN_RECALL, ...(options.recall === true ? {} : options.recall) } }
      : {}),
    ...(formation && context.longterm
      ? {
          formed: {
            memories: new FormedMemories(context.longterm),
            k: formation.recall,
            ...(profiles ? { profiles } : {}),
          },
        }
      : {}),
  });
  const turnFormation = await createTurnFormation(
    formation,
    context.longterm,
    context.cache,
    engine,
    {
      journal: context.formationJournal,
      profiles,
      leases: context.entityLeases,
      context: formation
        ? formationContextReader(context.provider, formation.settings.maxInputTokens)
        : undefined,
    },
  );
  return { engine, runner, ...(turnFormation ? { formation: turnFormation } : {}) };
}

/**
 * Recall and formation search the tier by words, or by meaning: over a tier with text search off,
 * a lexical recall cannot run, nor either of them without an embedder. Refused at bootstrap rather
 * than skipped on every turn.
 */
function assertTierRecalls(
  options: AgentModuleOptions,
  formation: boolean,
  longterm: LongtermMemoryService | undefined,
): void {
  if (!longterm?.enabled || longterm.recallLists.words) return;
  const off = 'LongtermMemoryModule has textSearch: false';
  if (typeof options.recall === 'object' && options.recall.mode === 'lexical')
    throw new InvalidModuleOptionsError(
      'AgentModule',
      'recall.mode',
      `lexical needs the long-term tier's text search: ${off}`,
    );
  const searching = options.recall ? 'recall' : formation ? 'formation' : undefined;
  if (searching && !longterm.recallLists.meaning)
    throw new InvalidModuleOptionsError(
      'AgentModule',
      searching,
      `needs the long-term tier's text search or an embedder: ${off} and no recall.embedder`,
    );
}
