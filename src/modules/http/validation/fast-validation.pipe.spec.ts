import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import { IsObject } from 'class-validator';
import fc from 'fast-check';
import { PutWorkingMemoryDto } from '../dto/memory.dto.js';
import { MessagesQueryDto } from '../dto/messages-query.dto.js';
import { TurnRequestDto } from '../dto/turn.dto.js';
import { fastBodyCheckOf } from './fast-body.js';
import { FastValidationPipe } from './fast-validation.pipe.js';

const OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  stopAtFirstError: true,
};
const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({
  type: 'query',
  metatype,
});

class NestedQueryDto {
  @IsObject()
  filter?: unknown;
}

function counted() {
  const pipe = new FastValidationPipe(OPTIONS);
  const full = jest.spyOn(ValidationPipe.prototype, 'transform');
  full.mockClear();
  return { pipe, full };
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('FastValidationPipe', () => {
  it('validates a query string once, then answers from memory with a fresh instance of the same values', async () => {
    const { pipe, full } = counted();
    const first = await pipe.transform({ last: '20' }, query(MessagesQueryDto));
    const second = (await pipe.transform(
      { last: '20' },
      query(MessagesQueryDto),
    )) as MessagesQueryDto;
    expect(full).toHaveBeenCalledTimes(1);
    expect(second).toBeInstanceOf(MessagesQueryDto);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    second.last = 1; // a handler changing its copy changes nothing remembered
    expect(await pipe.transform({ last: '20' }, query(MessagesQueryDto))).toEqual({ last: 20 });
  });

  it('answers a refused query string with the same 400 each time', async () => {
    const { pipe, full } = counted();
    const refusal = (value: object) =>
      pipe.transform(value, query(MessagesQueryDto)).then(
        () => undefined,
        (error: unknown) => error,
      );
    const first = await refusal({ last: '0' });
    const again = await refusal({ last: '0' });
    expect(first).toBeInstanceOf(BadRequestException);
    expect(again).toBe(first);
    expect((first as BadRequestException).getResponse()).toMatchObject({
      message: ['last must not be less than 1'],
    });
    expect(full).toHaveBeenCalledTimes(1);
    expect(await refusal({ last: '1000', extra: 'x' })).toBeInstanceOf(BadRequestException);
  });

  it('validates every time what it must not remember: bodies, long queries, objects among the values', async () => {
    const { pipe, full } = counted();
    const body: ArgumentMetadata = { type: 'body', metatype: MessagesQueryDto };
    await pipe.transform({ last: 3 }, body);
    await pipe.transform({ last: 3 }, body);
    const long = { last: '5', before: '1'.repeat(300) };
    await pipe.transform(long, query(MessagesQueryDto)).catch(() => undefined);
    await pipe.transform(long, query(MessagesQueryDto)).catch(() => undefined);
    await pipe.transform({ filter: { a: '1' } }, query(NestedQueryDto));
    await pipe.transform({ filter: { a: '1' } }, query(NestedQueryDto));
    expect(full).toHaveBeenCalledTimes(6);
  });

  it('keeps at most 512 query strings per class, forgetting the least recently used first', async () => {
    const { pipe, full } = counted();
    const ask = (last: number) => pipe.transform({ last: String(last) }, query(MessagesQueryDto));
    for (let last = 1; last <= 512; last++) await ask(last);
    await ask(1); // used again: now the newest
    await ask(513); // past the bound: forgets 2, the least recently used
    expect(full).toHaveBeenCalledTimes(513);
    await ask(1);
    await ask(3);
    expect(full).toHaveBeenCalledTimes(513);
    await ask(2);
    expect(full).toHaveBeenCalledTimes(514);
  });

  it('keeps 512 even when two requests validate the same new query at once', async () => {
    const { pipe, full } = counted();
    const ask = (last: number) => pipe.transform({ last: String(last) }, query(MessagesQueryDto));
    for (let last = 1; last <= 511; last++) await ask(last);
    await Promise.all([ask(600), ask(600)]); // both miss, both remember: 512 kept, none forgotten
    expect(full).toHaveBeenCalledTimes(513);
    for (let last = 1; last <= 511; last++) await ask(last);
    expect(full).toHaveBeenCalledTimes(513);
  });

  it('takes by a fast check only bodies the full validation accepts, with the same fields', async () => {
    const full = new ValidationPipe(OPTIONS);
    const fast = new FastValidationPipe(OPTIONS);
    const anyValue = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.stringMatching(/^[A-Za-z0-9_.:@-]{1,8}$/),
      fc.constantFrom('', ' ', 'a b', 'x'.repeat(201), null, true, 0, -1, 1.5),
      fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 2 }), fc.string({ maxLength: 2 }), { maxKeys: 2 }),
    );
    const anyBody = fc.dictionary(
      fc.constantFrom('message', 'entityId', 'value', 'extra'),
      anyValue,
      { maxKeys: 3 },
    );
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(TurnRequestDto, PutWorkingMemoryDto),
        anyBody,
        async (dto, body) => {
          if (!fastBodyCheckOf(dto)!(body)) return;
          taken += 1;
          const metadata: ArgumentMetadata = { type: 'body', metatype: dto };
          const expected = (await full.transform(structuredClone(body), metadata)) as object;
          const got = (await fast.transform(body, metadata)) as object;
          expect(got).toBeInstanceOf(dto);
          expect({ ...got }).toEqual({ ...expected });
        },
      ),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(100); // the property was not vacuous
  });

  it('validates in full what a fast check does not take: the same 400 as before', async () => {
    const pipe = new FastValidationPipe(OPTIONS);
    const body = (value: object, metatype: ArgumentMetadata['metatype']) =>
      pipe.transform(value, { type: 'body', metatype }).then(
        () => undefined,
        (error: BadRequestException) => error.getResponse(),
      );
    expect(await body({ message: '' }, TurnRequestDto)).toMatchObject({
      message: ['message must be a non-empty text or a non-empty array of parts'],
    });
    expect(await body({ message: 'hi', extra: 1 }, TurnRequestDto)).toMatchObject({
      message: ['property extra should not exist'],
    });
    expect(await body({ value: null }, PutWorkingMemoryDto)).toMatchObject({
      message: ['value is required: any JSON value but null'],
    });
    const parts = [{ type: 'text', text: 'hi' }];
    expect(
      await pipe.transform({ message: parts }, { type: 'body', metatype: TurnRequestDto }),
    ).toEqual({
      message: parts,
    });
  });
});
