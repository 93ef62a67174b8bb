import { checkTenantResolverOption } from './tenancy/tenant-resolver-option.js';
import { OptionChecker } from '../../common/options/option-checker.js';
import type { AgentMemoryHttpModuleOptions } from './agent-memory-http.options.js';

const KEYS = ['tenantResolver', 'longtermDisabledHint', 'pageBytes', 'resumableStreams'];
const STREAM_KEYS: Record<string, readonly string[]> = {
  memory: ['backend', 'maxBytes', 'keepMs'],
  redis: ['backend', 'maxBytes', 'keepMs', 'url', 'client', 'keyPrefix'],
};

/**
 * Checks `AgentMemoryHttpModule` options at bootstrap and returns them typed, or throws
 * `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateAgentMemoryHttpOptions(value: unknown = {}): AgentMemoryHttpModuleOptions {
  const check = new OptionChecker('AgentMemoryHttpModule');
  const options = check.object(value);
  check.keys(options, KEYS);
  check.string('longtermDisabledHint', options['longtermDisabledHint']);
  check.integer('pageBytes', options['pageBytes'], 1024);
  checkTenantResolverOption(check, options['tenantResolver']);
  if (options['resumableStreams'] !== undefined)
    checkResumableStreams(check.nested('resumableStreams'), options['resumableStreams']);
  return options as AgentMemoryHttpModuleOptions;
}

function checkResumableStreams(check: OptionChecker, value: unknown): void {
  const options = check.object(value, 'resumableStreams');
  check.required('backend', options['backend']);
  check.oneOf('backend', options['backend'], ['memory', 'redis']);
  check.keys(options, STREAM_KEYS[options['backend'] as string]!);
  if (options['backend'] === 'redis') {
    if (options['client'] === undefined) {
      check.required('url', options['url']);
      check.string('url', options['url']);
    }
    check.string('keyPrefix', options['keyPrefix']);
  }
  check.integer('maxBytes', options['maxBytes'], 1024);
  check.integer('keepMs', options['keepMs'], 0);
}
