import { describe, expect, it } from '@jest/globals';
import { prepareBatch } from '../../src/common/messages/message-validation.js';
import { InvalidMessageError } from '../../src/common/messages/invalid-message.error.js';

/** How a message is encoded for storage: exactly what was checked, whatever the caller's objects do. */
describe('message encoding', () => {
  it('writes the id first, then the fields in the caller’s order, without undefined ones', () => {
    const [prepared] = prepareBatch(
      [{ role: 'user', content: 'hi', name: undefined, id: 'm1' }],
      undefined,
    );
    expect(prepared!.json).toBe('{"id":"m1","role":"user","content":"hi"}');
  });

  it('writes the tool calls it checked, not what a toJSON of the caller answers', () => {
    const toolCalls = [{ id: 'c1', name: 'remember', arguments: '{"city":"Lisbon"}' }];
    Object.defineProperty(toolCalls, 'toJSON', {
      value: () => [{ id: 'c\u0000', name: 'other', arguments: 'x' }],
    });
    const [prepared] = prepareBatch([{ role: 'assistant', content: null, toolCalls }], undefined);
    expect(JSON.parse(prepared!.json)).toEqual({
      id: prepared!.id,
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'remember', arguments: '{"city":"Lisbon"}' }],
    });
  });

  it('refuses a field whose getter answers differently once checked', () => {
    let reads = 0;
    const call = {
      id: 'c1',
      name: 'remember',
      get arguments() {
        reads += 1;
        return reads === 1 ? '{}' : 'a\u0000b';
      },
    };
    const message = { role: 'assistant', content: null, toolCalls: [call] };
    expect(() => prepareBatch([message], undefined)).toThrow(InvalidMessageError);

    let contentReads = 0;
    const flipping = {
      role: 'user',
      get content() {
        contentReads += 1;
        return contentReads <= 1 ? 'text' : 42; // checkMessage reads it once
      },
    };
    expect(() => prepareBatch([flipping], undefined)).toThrow(
      /changed while it was being validated/,
    );
  });

  it('says plainly that content is missing', () => {
    expect(() => prepareBatch([{ role: 'user' } as never], undefined)).toThrow(
      'must be a string, an array of parts or null, got nothing (undefined)',
    );
  });

  it('still refuses U+0000 and non-finite numbers inside metadata', () => {
    expect(() =>
      prepareBatch([{ role: 'user', content: 'x', metadata: { a: ['\u0000'] } }], undefined),
    ).toThrow('a string holds U+0000, refused on every backend (PostgreSQL cannot store it)');
    expect(() =>
      prepareBatch([{ role: 'user', content: 'x', metadata: { n: Number.NaN } }], undefined),
    ).toThrow(/NaN/);
  });

  it('refuses holes in content parts and tool calls, and stores provider metadata as checked', () => {
    const sparseParts = [{ type: 'text', text: 'a' }, , { type: 'text', text: 'b' }];
    expect(() => prepareBatch([{ role: 'user', content: sparseParts }], undefined)).toThrow(
      'messages[0].content[1]',
    );
    const sparseCalls = [{ id: 'c', name: 'n', arguments: '{}' }, ,];
    expect(() =>
      prepareBatch([{ role: 'assistant', content: null, toolCalls: sparseCalls }], undefined),
    ).toThrow('messages[0].toolCalls[1]');
    // A toJSON that answers something else than the object checked: what is stored is checked.
    const sly = { anthropic: { signature: 's' }, toJSON: () => 'not an object' };
    expect(() =>
      prepareBatch(
        [{ role: 'assistant', content: [{ type: 'reasoning', text: 't', providerMetadata: sly }] }],
        undefined,
      ),
    ).toThrow('providerMetadata');
    const [prepared] = prepareBatch(
      [
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            {
              id: 'c',
              name: 'n',
              arguments: '{}',
              providerMetadata: { openai: { itemId: 'fc_1' } },
            },
          ],
        },
      ],
      undefined,
    );
    expect(JSON.parse(prepared!.json).toolCalls[0].providerMetadata).toEqual({
      openai: { itemId: 'fc_1' },
    });
  });
});
