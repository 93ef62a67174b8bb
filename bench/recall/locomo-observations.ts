import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TUNING_CONVERSATIONS } from './locomo.js';

/** One session of a LoCoMo conversation with the facts an LLM drew from it. */
export interface LocomoSession {
  /** `DK`. */
  id: string;
  /** When the session took place (epoch ms, from `session_K_date_time`). */
  at: number;
  turns: Array<{ id: string; speaker: string; text: string }>;
  /** `session_K_observation`: each fact with the turns it rests on. */
  facts: Array<{ text: string; turnIds: string[] }>;
}

/** The sessions of the first five conversations, in order, with their observations. */
export function loadLocomoSessions(): Array<{ id: string; sessions: LocomoSession[] }> {
  const dir = process.env.LOCOMO_DIR!;
  return TUNING_CONVERSATIONS.map((id) => {
    const data = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as Record<
      string,
      unknown
    >;
    const sessions: LocomoSession[] = [];
    for (let k = 1; Array.isArray(data[`session_${k}`]); k += 1) {
      const turns = (data[`session_${k}`] as Array<Record<string, string>>).map((turn) => ({
        id: turn.dia_id!.trim(),
        speaker: turn.speaker!,
        text: [turn.text, turn.blip_caption ? `(shares a photo: ${turn.blip_caption})` : '']
          .join(' ')
          .trim(),
      }));
      const observed = (data[`session_${k}_observation`] ?? {}) as Record<
        string,
        Array<[string, string | string[]]>
      >;
      const facts = Object.values(observed)
        .flat()
        .map(([text, evidence]) => ({
          text,
          turnIds: (Array.isArray(evidence) ? evidence : [evidence]).map((e) => e.trim()),
        }));
      sessions.push({
        id: `D${k}`,
        at: sessionTime(String(data[`session_${k}_date_time`])),
        turns,
        facts,
      });
    }
    return { id, sessions };
  });
}

/** `1:56 pm on 8 May, 2023` as epoch ms (UTC). */
function sessionTime(text: string): number {
  const match = /(\d+):(\d+)\s*(am|pm) on (\d+) (\w+),? (\d{4})/i.exec(text);
  if (!match) throw new Error(`Unreadable LoCoMo session time: ${text}`);
  const [, hour, minute, half, day, month, year] = match;
  const hours = (Number(hour) % 12) + (half!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.parse(`${day} ${month} ${year} ${hours}:${minute} UTC`);
}
