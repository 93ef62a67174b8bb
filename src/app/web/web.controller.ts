import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Public } from '../auth/public.decorator.js';
import { WEB_ROOT } from './web-assets.js';

/** Express's response or Fastify's reply: both set a type and send a body this way. */
interface PageResponse {
  type(contentType: string): { send(body: Buffer): unknown };
}

/**
 * The web page's shell at `/` (chat) and `/inspector`. The shell holds no data, so it needs no key;
 * every API call the page makes carries the key the user gives it, and is tenant-scoped.
 */
@ApiExcludeController()
@Controller()
export class WebController {
  @Get(['/', 'inspector'])
  @Public()
  async page(@Res() response: PageResponse): Promise<void> {
    // Read each time (a few kB): a rebuilt page is served without a restart.
    const html = await readFile(join(WEB_ROOT, 'index.html'));
    response.type('text/html; charset=utf-8').send(html);
  }
}
