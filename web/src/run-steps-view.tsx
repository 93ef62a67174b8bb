import { useEffect, useState } from 'react';
import { getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import type { RunSteps } from './types.js';

const json = (value: unknown) => JSON.stringify(value);

/**
 * A run's steps from `GET /runs/:runId/steps`: each model call (text, tool calls, tokens) and tool
 * call (arguments, result, rows staged), marked when a retry replayed it from the run cache; then
 * the long-term keys the run flushed and those refused as stale.
 */
export function RunStepsView({ runId }: { runId: string }) {
  const [steps, setSteps] = useState<RunSteps>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    getJson<RunSteps>(`/runs/${seg(runId)}/steps`)
      .then(setSteps)
      .catch((failure: unknown) => setError(reportFailure(failure)));
  }, [runId]);

  if (error) return <p className="error">{error}</p>;
  if (!steps) return <p className="status">Loading steps…</p>;
  return (
    <>
      <ol className="steps">
        {steps.steps.map((step) => (
          <li
            key={`${step.type}:${step.scope}:${step.round}:${step.index ?? ''}`}
            className={`step ${step.type}`}
            data-testid="run-step"
          >
            <span className="step-kind">
              {step.type === 'model' ? 'model call' : 'tool call'}
              {step.scope > 0 ? ` · retry scope ${step.scope}` : ''} · round {step.round}
            </span>
            {step.replayed && (
              <span className="badge" data-testid="replayed">
                replayed from run cache
              </span>
            )}
            {step.type === 'model' ? (
              <div>
                {step.content && <q>{step.content}</q>}
                {step.toolCalls?.map((call) => (
                  <code key={call.id}>
                    {' '}
                    → {call.name}({call.arguments})
                  </code>
                ))}
                {step.usage && (
                  <span className="tokens">
                    {' '}
                    {step.usage.promptTokens} in / {step.usage.completionTokens} out
                  </span>
                )}
              </div>
            ) : (
              <div data-testid="run-tool">
                <span className="tool-name">{step.call?.name ?? `call ${step.index}`}</span>
                <code>{step.call?.arguments}</code> → <code>{step.error ?? json(step.result)}</code>
                {step.staged?.map((row) => (
                  <div key={row.key} className="staged">
                    staged <code>{row.key}</code> = <code>{json(row.value)}</code>
                  </div>
                ))}
              </div>
            )}
          </li>
        ))}
      </ol>
      {steps.longterm && (
        <p data-testid="run-flush">
          Long-term ({steps.longterm.entityId}, seq {steps.longterm.seq}): flushed{' '}
          {steps.longterm.flushed.map((key) => (
            <code key={key}>{key} </code>
          ))}
          {steps.longterm.flushed.length === 0 && 'none'}; refused{' '}
          {steps.longterm.refused.map((key) => (
            <code key={key}>{key} </code>
          ))}
          {steps.longterm.refused.length === 0 && 'none'}
        </p>
      )}
    </>
  );
}
