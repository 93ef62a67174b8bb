import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { join } from 'node:path';
import { Public } from '../auth/public.decorator.js';
import { WEB_ROOT } from './web-assets.js';

/**
 * The web page's shell at `/` (chat) and `/inspector`. The shell holds no data, so it needs no key;
 * every API call the page makes carries the key the user gives it, and is tenant-scoped.
 */
@ApiExcludeController()
@Controller()
export class WebController {
  @Get(['/', 'inspector'])
  @Public()
  page(@Res() response: { sendFile(path: string): void }): void {
    response.sendFile(join(WEB_ROOT, 'index.html'));
  }
}
