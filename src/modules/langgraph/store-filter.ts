/**
 * Whether an item's value passes a LangGraph store `filter`: each key's value equals the filter's,
 * or satisfies its operators (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`), as
 * LangGraph's own in-memory store decides.
 */
export function matchesFilter(
  value: Record<string, unknown>,
  filter: Record<string, unknown>,
): boolean {
  return Object.entries(filter).every(([key, expected]) => matches(value[key], expected));
}

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

function matches(actual: unknown, expected: unknown): boolean {
  if (
    typeof expected !== 'object' ||
    expected === null ||
    Array.isArray(expected) ||
    !Object.keys(expected).every((key) => OPERATORS.has(key))
  )
    return sameValue(actual, expected);
  return Object.entries(expected).every(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return sameValue(actual, operand);
      case '$ne':
        return !sameValue(actual, operand);
      case '$gt':
        return Number(actual) > Number(operand);
      case '$gte':
        return Number(actual) >= Number(operand);
      case '$lt':
        return Number(actual) < Number(operand);
      case '$lte':
        return Number(actual) <= Number(operand);
      case '$in':
        return Array.isArray(operand) && operand.some((item) => sameValue(actual, item));
      default:
        return !Array.isArray(operand) || !operand.some((item) => sameValue(actual, item));
    }
  });
}

/** Equality of JSON values (objects and arrays by content, as stored values come back parsed). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
