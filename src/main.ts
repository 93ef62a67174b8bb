import module from 'node:module';

/**
 * The example app's entry (`node dist/main.js`). V8's compiled code of the app's modules is kept on
 * disk between starts (Node's compile cache, in the OS temp directory; `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off), so only the first start compiles them; then the app boots (`app/bootstrap.ts`).
 */
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./app/bootstrap.js');
