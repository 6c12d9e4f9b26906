import { stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fastifyStatic } from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { notFound, unavailable } from "./errors.js";

/**
 * The dashboard (web/, README "Dashboard"): the static bundle Vite writes to `dist/web`, served
 * at `/dashboard/` as Hornet serves its node-dashboard beside the API. It is a client of the
 * public REST and event APIs like any other, so nothing here reads the node.
 *
 * - A file of the bundle is sent as it is (@fastify/static); its hashed assets (`assets/`, names
 *   carrying a content hash) are cached for a year, `index.html` is revalidated each time, so a
 *   new build reaches browsers at the next load.
 * - Every other path under `/dashboard` answers `index.html`: the app routes in the browser, so
 *   its URLs can be reloaded and shared. A missing file under `assets/` is 404, never the page
 *   (a browser would try to run HTML as a script).
 * - Without a build (`dist/web/index.html` missing) every dashboard path answers 503 saying so.
 * - Public under the default route patterns (`/*`); the routes are hidden from the OpenAPI
 *   document, which describes the API, not the pages.
 */

/** Where the dashboard is served. */
export const DASHBOARD_PATH = "/dashboard";

/** `dist/web` beside the compiled `dist/src`, where scripts/build-web.mjs puts the bundle. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL("../../web/", import.meta.url));

/** Vite's output folder of hashed assets (web/vite.config.ts `assetsDir`). */
const ASSETS = "assets/";

/** A hashed asset never changes under its name. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/** What the dashboard is told beyond its bundle. */
export interface DashboardOptions {
  /**
   * Origins (`scheme://host[:port]`, or `*`) the pages may load images from besides the node
   * itself: the explorer shows an NFT's IRC-27 image only from these (`--dashboard-img-src`).
   */
  imgSrc: string[];
}

export const defaultDashboardOptions: DashboardOptions = { imgSrc: [] };

/**
 * What the pages may load: only the node itself (scripts, styles, fetch and the event API's
 * WebSocket, which CSP Level 3's 'self' covers), no inline script, no framing; images also from
 * the origins the operator lists (NFT images, IRC-27), never by default. Browsers apply it to
 * the document, so it rides on every dashboard answer. 'wasm-unsafe-eval' lets the explorer
 * compile the BLAKE2b of hash-wasm (the node's own hashing, run in the page to check output ID
 * proofs); it allows WebAssembly only, never `eval` of script.
 */
export function contentSecurityPolicy(options: DashboardOptions = defaultDashboardOptions): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    ["img-src 'self' data:", ...options.imgSrc].join(" "),
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The other security headers of every dashboard answer. */
const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

/**
 * The bundle-relative file a wildcard path names, or undefined when it cannot name one: empty,
 * a dot segment or dotfile (the build stamp), a backslash or NUL. @fastify/send refuses paths
 * outside its root too; this keeps such paths from even being stat'ed.
 */
function bundleFile(rest: string): string | undefined {
  if (rest === "" || rest.length > 512) return undefined;
  if (rest.includes("\\") || rest.includes("\0")) return undefined;
  const segments = rest.split("/");
  if (segments.some((s) => s === "" || s.startsWith("."))) return undefined;
  return segments.join("/");
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Serves the dashboard from `dir` (default `dist/web`) at `/dashboard` and `/dashboard/*`. */
export function registerDashboard(
  app: FastifyInstance,
  dir: string = DEFAULT_DASHBOARD_DIR,
  options: DashboardOptions = defaultDashboardOptions,
): void {
  const index = join(dir, "index.html");
  const securityHeaders = { ...SECURITY_HEADERS, "content-security-policy": contentSecurityPolicy(options) };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.headers(securityHeaders);
    // checked on every request: the bundle may be built (or rebuilt) while the node runs
    if (!(await isFile(index))) {
      throw unavailable(`the dashboard is not built: run "npm run build", which writes it to ${dir}`);
    }
    const rest = (request.params as { "*"?: string })["*"] ?? "";
    const file = bundleFile(rest);
    if (file !== undefined && file !== "index.html" && (await isFile(join(dir, file)))) {
      const hashed = file.startsWith(ASSETS);
      return reply.sendFile(file, dir, {
        dotfiles: "deny",
        maxAge: hashed ? ASSET_MAX_AGE_MS : 0,
        immutable: hashed,
      });
    }
    if (rest.startsWith(ASSETS)) throw notFound(`the dashboard has no file ${rest}`);
    void reply.header("cache-control", "no-cache");
    return reply.sendFile("index.html", dir, { cacheControl: false });
  };

  // encapsulated: sendFile decorates this scope's replies only; the root's hooks (access check,
  // CORS, compression) and error handling apply as to every route
  app.register(async (scope) => {
    await scope.register(fastifyStatic, { serve: false });
    const options = { schema: { hide: true } };
    scope.get(DASHBOARD_PATH, options, handler);
    scope.get(`${DASHBOARD_PATH}/*`, options, handler);
  });
}
