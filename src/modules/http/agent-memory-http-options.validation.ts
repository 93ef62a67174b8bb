import { checkTenantResolverOption } from './tenancy/tenant-resolver-option.js';
import { OptionChecker } from '../../common/options/option-checker.js';
import type { AgentMemoryHttpModuleOptions } from './agent-memory-http.options.js';

const KEYS = ['tenantResolver', 'longtermDisabledHint', 'pageBytes'];

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
  return options as AgentMemoryHttpModuleOptions;
}
