import { register } from 'node:module';

register('./block-packages.hooks.mjs', import.meta.url);
