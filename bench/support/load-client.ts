import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-generator.js';

const GENERATOR = fileURLToPath(new URL('./load-generator.ts', import.meta.url));

/** Runs load jobs in a forked process (the load generator), one at a time. */
export class LoadClient {
  private readonly child: ChildProcess = fork(GENERATOR, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

  /** Runs one job and resolves with what it measured. */
  run(job: LoadJob): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`the load generator exited (${code})`));
      this.child.once('exit', onExit);
      this.child.once('message', (reply: { ok: boolean; result?: LoadResult; error?: string }) => {
        this.child.off('exit', onExit);
        if (reply.ok) resolve(reply.result!);
        else reject(new Error(reply.error));
      });
      this.child.send(job);
    });
  }

  /** Stops the generator. */
  close(): void {
    this.child.kill();
  }
}
