import { checkTenantResolverOption } from '../http/tenancy/tenant-resolver-option.js';
import { OptionChecker } from '../../common/options/option-checker.js';
import type { AgentMemoryMcpModuleOptions } from './agent-memory-mcp.options.js';

const KEYS = [
  'tenantResolver',
  'pageBytes',
  'longtermDisabledHint',
  'maxRequestBodyBytes',
  'serverName',
];

/**
 * Checks `AgentMemoryMcpModule` options at bootstrap and returns them typed, or throws
 * `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateAgentMemoryMcpOptions(value: unknown = {}): AgentMemoryMcpModuleOptions {
  const check = new OptionChecker('AgentMemoryMcpModule');
  const options = check.object(value);
  check.keys(options, KEYS);
  check.string('longtermDisabledHint', options['longtermDisabledHint']);
  check.string('serverName', options['serverName']);
  check.integer('pageBytes', options['pageBytes'], 1024);
  check.integer('maxRequestBodyBytes', options['maxRequestBodyBytes'], 1024);
  checkTenantResolverOption(check, options['tenantResolver']);
  return options as AgentMemoryMcpModuleOptions;
}
