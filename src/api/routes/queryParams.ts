import { badRequest } from "../errors.js";

/**
 * The query-parameter helpers every listing route shares (indexer, explorer): the parameters
 * as single strings, integers and page sizes with the reason a bad one gets, and the
 * `<position>.<pageSize>` cursor of the explorer's listings (docs/decisions.md, Explorer).
 */

/** The query parameters as single strings; unknown names and repeated ones are bad input. */
export function queryParams(query: unknown, allowed: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (!allowed.has(name)) throw badRequest(`unknown query parameter "${name}"`);
    if (typeof value !== "string") throw badRequest(`query parameter "${name}" is given more than once`);
    out.set(name, value);
  }
  return out;
}

/** A non-negative decimal integer no larger than `max`. */
export function parseUint(name: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]{1,16}$/.test(value)) throw badRequest(`${name}: expected a non-negative integer, got "${value}"`);
  const n = Number(value);
  if (n > max) throw badRequest(`${name}: ${value} is above ${max}`);
  return n;
}

/** A u32 in decimal (a milestone index). */
export function parseU32(name: string, value: string): number {
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) > 0xffffffff)
    throw badRequest(`${name}: expected a u32, got "${value}"`);
  return Number(value);
}

/** A page size of at least 1; larger than `max` means `max`. */
export function parsePageSize(name: string, value: string, max: number): number {
  const n = parseUint(name, value);
  if (n < 1) throw badRequest(`${name}: must be at least 1`);
  return Math.min(n, max);
}

/** Page sizes of a listing: the default and the largest. */
export interface PageLimits {
  defaultSize: number;
  maxSize: number;
}

/**
 * `pageSize` and a cursor `<position>.<pageSize>` whose position `parse` reads; the cursor's
 * page size wins over `pageSize`.
 */
export function paging<T>(
  p: Map<string, string>,
  limits: PageLimits,
  parse: (position: string) => T,
): { pageSize: number; from?: T } {
  let pageSize = limits.defaultSize;
  const size = p.get("pageSize");
  if (size !== undefined) pageSize = parsePageSize("pageSize", size, limits.maxSize);
  const cursor = p.get("cursor");
  if (cursor === undefined) return { pageSize };
  const dot = cursor.lastIndexOf(".");
  if (dot < 1) throw badRequest(`cursor: expected <position>.<page size>, got "${cursor}"`);
  return {
    pageSize: parsePageSize("cursor page size", cursor.slice(dot + 1), limits.maxSize),
    from: parse(cursor.slice(0, dot)),
  };
}
