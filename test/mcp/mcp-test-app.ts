import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';

/** A Nest app of `imports`, listening on a free loopback port; resolves it and its base URL. */
export async function listenWith(
  imports: unknown[],
  options: { bodyParser?: boolean } = {},
): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: imports as never[] }).compile();
  const app = moduleRef.createNestApplication({ logger: false, ...options });
  await app.listen(0, '127.0.0.1');
  return { app, url: await app.getUrl() };
}
