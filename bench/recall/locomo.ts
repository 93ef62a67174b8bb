import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The conversations used for tuning and our own numbers (the other five are kept unseen). */
export const TUNING_CONVERSATIONS = ['26', '30', '41', '42', '43'] as const;

/** One turn of a LoCoMo conversation, stored as one record keyed by its `dia_id`. */
export interface LocomoTurn {
  key: string;
  value: { speaker: string; text: string; image?: string };
}

/** One question with the turns (`dia_id`s) that hold its answer. */
export interface LocomoQuestion {
  question: string;
  evidence: string[];
  category: number;
  /** The benchmark's answer (a number or a date in some questions: read as text). */
  answer?: string | number;
}

/** A conversation's turns and its questions of categories 1–4 (those backed by evidence). */
export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

/**
 * The first five LoCoMo conversations from `LOCOMO_DIR` (the benchmark's `locomo10_v2` files,
 * `NN.json`), or a clear error naming what to set.
 */
export function loadLocomo(): LocomoConversation[] {
  const dir = process.env.LOCOMO_DIR;
  if (!dir || !existsSync(join(dir, '26.json')))
    throw new Error(
      'Set LOCOMO_DIR to a folder holding the LoCoMo files 26.json … 43.json (snap-research/locomo, data/locomo10.zip, folder locomo10_v2)',
    );
  return TUNING_CONVERSATIONS.map((id) => {
    const data = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as Record<
      string,
      unknown
    >;
    const turns: LocomoTurn[] = [];
    for (const [name, session] of Object.entries(data))
      if (/^session_\d+$/.test(name) && Array.isArray(session))
        for (const turn of session as Array<Record<string, string>>)
          turns.push({
            key: turn.dia_id!,
            value: {
              speaker: turn.speaker!,
              text: turn.text!,
              ...(turn.blip_caption ? { image: turn.blip_caption } : {}),
            },
          });
    const questions = (data.qa as LocomoQuestion[]).filter(
      (qa) => qa.category >= 1 && qa.category <= 4 && qa.evidence.length > 0,
    );
    return { id, turns, questions };
  });
}
