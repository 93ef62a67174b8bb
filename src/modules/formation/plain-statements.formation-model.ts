import { words } from '../longterm/recall/search-text.js';
import type {
  ChoiceAnswer,
  ChoiceInput,
  ExtractionAnswer,
  ExtractionInput,
  MemoryFormationModel,
} from './formation-model.interface.js';
import type {
  ConsolidationChoice,
  FormedMemory,
  MemoryCandidate,
} from './formed-memory.interface.js';

const DAY_MS = 86_400_000;

/** Statements about one thing the user has one of: a newer one supersedes the older. */
const SLOTS: Array<{ pattern: RegExp; text: (value: string) => string }> = [
  {
    pattern: /^(?:my name is|i am called|i'm called|call me) (.+)$/,
    text: (v) => `The user's name is ${v}`,
  },
  {
    pattern:
      /^i (?:now |still )?(?:live|am living|'m living) in (.+)$|^i(?:'ve| have)? (?:just |recently )?moved to (.+)$/,
    text: (v) => `The user lives in ${v}`,
  },
  { pattern: /^i (?:now |still )?work (?:at|for) (.+)$/, text: (v) => `The user works at ${v}` },
];
const LIKE = /^i (?:really |also |still )?(?:like|love|enjoy) (.+)$/;
const DISLIKE =
  /^i (?:don't|do not|no longer|dont) (?:like|love|enjoy) (.+)$|^i (?:hate|dislike) (.+)$/;
const REMEMBER = /^(?:please )?remember(?: that)? (.+)$/;
const FORGET = /^(?:please )?forget(?: that| about)? (.+)$/;
/** Words a sentence may open with that do not change what it says. */
const OPENERS =
  /^(?:(?:actually|well|oh|so|and|also|now|btw|by the way|anyway|hi|hello|hey),?\s+)+/;
/** Words a sentence may end with that do not change what it says. */
const TRAILING = /(?:\s+(?:anymore|any more|now|too|as well|please))+$/;
/** When a change happened, said at the end of the sentence. */
const WHEN: Array<[RegExp, number]> = [
  [/\s+yesterday$/, DAY_MS],
  [/\s+last week$/, 7 * DAY_MS],
  [/\s+last month$/, 30 * DAY_MS],
  [/\s+last year$/, 365 * DAY_MS],
];

/**
 * The offline demo's formation model: no LLM, a few plain English statements of the user's own,
 * read sentence by sentence — "my name is …", "I live in … / I moved to …", "I work at …",
 * "I like / love / enjoy …", "I don't like / no longer like / hate …", "remember that …",
 * "forget that …" — with "yesterday", "last week / month / year" setting when a change began.
 * A newer name, home or workplace supersedes the older; a changed liking supersedes the liking;
 * "forget that …" retracts the memory it names. With a profile whose schema has them, the name,
 * home and workplace also go to its `name`, `city` and `employer`, and "forget that …" takes back
 * the member it set (`null` in the patch) while the profile still holds it. Deterministic, and a
 * demo: a real model finds far more, in any wording and language.
 */
export class PlainStatementsFormationModel implements MemoryFormationModel {
  readonly id = 'plain-statements';

  /** The user's plain statements, sentence by sentence (other roles are not read). */
  extract(input: ExtractionInput): Promise<ExtractionAnswer> {
    const candidates: MemoryCandidate[] = [];
    // What each statement says of the user, in order; a retraction as what it takes back.
    const said: ProfileStatement[] = [];
    for (const message of input.messages) {
      if (message.role !== 'user') continue;
      for (const sentence of sentences(message.text)) {
        const candidate = readStatement(sentence, input.observedAt);
        // A statement past maxCandidates changes neither the memories nor the profile.
        if (!candidate || candidates.length >= input.maxCandidates) continue;
        candidates.push({ ...candidate, messageIds: [message.id] });
        const forgotten = candidate.retraction ? forgottenStatement(sentence) : undefined;
        if (forgotten) said.push({ text: forgotten, takenBack: true });
        else if (!candidate.retraction) said.push({ text: candidate.text, takenBack: false });
      }
    }
    const profilePatch = input.profile ? profilePatchOf(said, input.profile) : {};
    return Promise.resolve({
      candidates,
      ...(Object.keys(profilePatch).length > 0 ? { profilePatch } : {}),
    });
  }

  /** A newer value of a held slot or liking updates it; a retraction invalidates what it names. */
  choose(input: ChoiceInput): Promise<ChoiceAnswer> {
    return Promise.resolve({
      choices: input.candidates.map((candidate, index) =>
        chooseFor(candidate, input.neighbours[index] ?? []),
      ),
    });
  }
}

/** The profile members the demo fills, from the memory a statement makes (the last one wins). */
const PROFILE_MEMBERS: Array<[prefix: string, member: string]> = [
  ["The user's name is ", 'name'],
  ['The user lives in ', 'city'],
  ['The user works at ', 'employer'],
];

/** A memory a statement makes, or (`takenBack`) the one a "forget that …" takes back. */
interface ProfileStatement {
  text: string;
  takenBack: boolean;
}

/**
 * A merge patch of the profile from a turn's statements: `name`, `city` and `employer`, each only
 * when the profile's schema has that property (of type string); `null` for one the user took back
 * ("forget that I live in Lyon" while the profile's city is Lyon; another city is left as it is).
 */
function profilePatchOf(
  statements: readonly ProfileStatement[],
  profile: { schema: Record<string, unknown>; document: Record<string, unknown> },
): Record<string, string | null> {
  const properties = (profile.schema['properties'] ?? {}) as Record<string, { type?: unknown }>;
  const patch: Record<string, string | null> = {};
  for (const { text, takenBack } of statements)
    for (const [prefix, member] of PROFILE_MEMBERS) {
      if (!text.startsWith(prefix) || properties[member]?.type !== 'string') continue;
      const value = text.slice(prefix.length);
      const held = member in patch ? patch[member] : profile.document[member];
      if (!takenBack) patch[member] = value;
      else if (typeof held === 'string' && held.toLowerCase() === value.toLowerCase())
        patch[member] = null;
    }
  // A member taken back that the profile does not hold needs no patch (said and taken back at once).
  for (const [member, value] of Object.entries(patch))
    if (value === null && !(member in profile.document)) delete patch[member];
  return patch;
}

/** The memory a "forget that …" sentence takes back, read as the statement it names. */
function forgottenStatement(sentence: string): string | undefined {
  const said = plainCase(sentence).replace(OPENERS, '');
  const match = FORGET.exec(said);
  if (!match) return undefined;
  const at = plainCase(sentence).lastIndexOf(match[1]!);
  const named = readStatement(at >= 0 ? sentence.slice(at) : match[1]!, 0);
  return named && !named.retraction ? named.text : undefined;
}

function chooseFor(candidate: MemoryCandidate, neighbours: FormedMemory[]): ConsolidationChoice {
  if (candidate.retraction) {
    const named = bestOverlap(candidate.text, neighbours);
    return named ? { op: 'INVALIDATE', target: named.id } : { op: 'NONE' };
  }
  const slot = SLOTS.map((s) => s.text('')).find((prefix) => candidate.text.startsWith(prefix));
  if (slot) {
    const held = neighbours.find((memory) => memory.text.startsWith(slot));
    return held ? { op: 'UPDATE', target: held.id } : { op: 'ADD' };
  }
  const liking = /^The user (?:likes|does not like) (.+)$/.exec(candidate.text);
  if (liking) {
    const thing = key(liking[1]!);
    const held = neighbours.find((memory) => {
      const other = /^The user (?:likes|does not like) (.+)$/.exec(memory.text);
      return other !== null && key(other[1]!) === thing;
    });
    return held ? { op: 'UPDATE', target: held.id } : { op: 'ADD' };
  }
  return { op: 'ADD' };
}

/** The memory sharing the most words with a retraction (at least half of the retraction's). */
function bestOverlap(text: string, neighbours: FormedMemory[]): FormedMemory | undefined {
  const wanted = new Set(
    words(text).filter((word) => !['user', 's', 'the', 'forget'].includes(word)),
  );
  let best: FormedMemory | undefined;
  let bestShared = 0;
  for (const memory of neighbours) {
    const shared = new Set(words(memory.text).filter((word) => wanted.has(word))).size;
    if (shared > bestShared) [best, bestShared] = [memory, shared];
  }
  return bestShared * 2 >= wanted.size && bestShared > 0 ? best : undefined;
}

function readStatement(
  sentence: string,
  observedAt: number,
): Omit<MemoryCandidate, 'messageIds'> | undefined {
  let said = plainCase(sentence).replace(OPENERS, '');
  let validFrom: number | undefined;
  said = said.replace(TRAILING, '');
  for (const [pattern, ago] of WHEN)
    if (pattern.test(said)) {
      said = said.replace(pattern, '');
      validFrom = observedAt - ago;
    }
  const original = (match: RegExpExecArray) => {
    const value = match.slice(1).find((group) => group !== undefined)!;
    // The value as the user wrote it (its case), from where it starts in the lower-cased sentence.
    const at = plainCase(sentence).lastIndexOf(value);
    return clean(at >= 0 ? sentence.slice(at, at + value.length) : value);
  };
  const when = validFrom === undefined ? {} : { validFrom };
  for (const slot of SLOTS) {
    const match = slot.pattern.exec(said);
    if (match) return { text: slot.text(original(match)), kind: 'fact', ...when };
  }
  let match = DISLIKE.exec(said);
  if (match)
    return { text: `The user does not like ${original(match)}`, kind: 'preference', ...when };
  match = LIKE.exec(said);
  if (match) return { text: `The user likes ${original(match)}`, kind: 'preference', ...when };
  match = REMEMBER.exec(said);
  if (match) return { text: capitalize(thirdPerson(original(match))), kind: 'fact', ...when };
  match = FORGET.exec(said);
  if (match)
    return { text: `Forget: ${thirdPerson(original(match))}`, kind: 'fact', retraction: true };
  return undefined;
}

/** Sentences, and their clauses that start with "I" ("I live in Paris, and I love jazz"). */
function sentences(text: string): string[] {
  return text
    .split(/[.!?;\n]+|,?\s+(?:and|but)\s+(?=I\b)|,\s*(?=I\b)/i)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0 && sentence.length <= 300);
}

/** "I", "me", "my" and "I'm" as the user, so a memory reads the same whoever recalls it. */
function thirdPerson(text: string): string {
  return text
    .replace(/\bI'm\b|\bI am\b/g, 'the user is')
    .replace(/\bI\b/g, 'the user')
    .replace(/\bmy\b/gi, "the user's")
    .replace(/\bme\b/gi, 'the user');
}

/** Lower case with a plain apostrophe: what the statement patterns read. */
function plainCase(text: string): string {
  return text.toLowerCase().replace(/’/g, "'");
}

function clean(value: string): string {
  return value
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[,:]+$/, '');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a liking is about, for matching "likes X" with "does not like X". */
function key(thing: string): string {
  return words(thing).join(' ');
}
