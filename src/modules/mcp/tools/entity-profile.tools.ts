import { NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import * as z from 'zod/v4';
import type { EntityProfiles } from '../../formation/profile/entity-profiles.js';
import type { McpMemoryServices } from '../mcp-memory.services.js';
import { defineMemoryTool } from './memory-tool.js';
import { entityIdInput } from './tool-input.schemas.js';

/** The agent's profiles (its `formation.profile`), or a tool error saying none is configured. */
function profilesOf(services: McpMemoryServices): EntityProfiles {
  // The long-term tier first: off, the tool says so as the other long-term tools do.
  const { longterm } = services;
  const profiles = longterm.enabled ? services.agent?.profiles : undefined;
  if (!profiles)
    throw new NotFoundException("No entity profile is configured (the agent's formation.profile)");
  return profiles;
}

/** `profile_get`: the REST API's `GET /entities/:entityId/profile`. */
export const profileGetTool = defineMemoryTool({
  name: 'profile_get',
  title: "Read an entity's profile",
  description:
    'The entity’s profile: a JSON document in the shape the app configured (name, preferences, …), ' +
    'with its version and who made it (formation or an edit). No profile yet is a tool error.',
  input: z.strictObject({ entityId: entityIdInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run({ entityId }, { scope, services }) {
    const profile = await profilesOf(services).get(scope.scoped(entityId, 'entityId'));
    if (!profile) throw new NotFoundException(`${entityId} has no profile yet`);
    return profile as unknown as Record<string, unknown>;
  },
});

/** `profile_patch`: the REST API's `PATCH /entities/:entityId/profile`. */
export const profilePatchTool = defineMemoryTool({
  name: 'profile_patch',
  title: "Change an entity's profile",
  description:
    'Applies a JSON Merge Patch (RFC 7396) to the entity’s profile: members given are set, null ' +
    'removes one, the others are kept. A new version (the old ones stay readable); a result that ' +
    'breaks the profile’s schema or size is a tool error with the reason, and changes nothing.',
  input: z.strictObject({
    entityId: entityIdInput,
    patch: z.record(z.string(), z.unknown()).describe('The merge patch: a JSON object'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run({ entityId, patch }, { scope, services }) {
    const outcome = await profilesOf(services).edit(scope.scoped(entityId, 'entityId'), patch);
    if (outcome.status === 'refused') throw new UnprocessableEntityException(outcome.reason);
    if (!outcome.profile) throw new NotFoundException(`${entityId} has no profile yet`);
    return outcome.profile as unknown as Record<string, unknown>;
  },
});
