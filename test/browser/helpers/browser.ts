import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { NodeProcess } from "../../helpers/nodeProcess.js";

/**
 * The dashboard in a real browser against a real node process: Debian's Chromium driven by
 * playwright-core (no browser download: the system's), one node and one browser per test file.
 * Every page a test opens is watched: a console error or an uncaught page error fails the test,
 * and `check` takes a screenshot (`test-output/screenshots/<name>.png`) and runs axe-core on the
 * page, failing on serious or critical violations (WCAG 2.1 A/AA rules and best practices).
 */

/** Debian's package `chromium` installs it here; `CHROMIUM_PATH` names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const SCREENSHOT_DIR = "test-output/screenshots";

/** A phone's viewport (CSS pixels) for the narrow-screen checks. */
export const PHONE_VIEWPORT = { width: 390, height: 844 };
const DESKTOP_VIEWPORT = { width: 1280, height: 900 };

const require = createRequire(import.meta.url);

/** Launches headless Chromium, or fails saying how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: the browser tests drive Debian's chromium package. ` +
        `Install it with "apt-get update && apt-get install -y chromium" (.ci/run does this on CI), ` +
        "or set CHROMIUM_PATH to another Chromium.",
    );
  }
  // Chromium's sandbox refuses to run as root; CI and this machine run tests as root
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...(asRoot ? ["--no-sandbox"] : []), "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

/** One page of a test, with what went wrong on it so far. */
export class WatchedPage {
  /** Console errors and uncaught exceptions, in words. */
  readonly problems: string[] = [];
  /** Answers a test expects to fail (`expectFailedLoads`): the browser reports them as console errors. */
  private readonly expectedFailures: { status: number; url: RegExp }[] = [];

  constructor(
    readonly page: Page,
    readonly base: string,
  ) {
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const where = message.location().url;
      const text = message.text();
      const expected = this.expectedFailures.some(
        (f) =>
          text.startsWith(`Failed to load resource: the server responded with a status of ${f.status} `) &&
          f.url.test(where),
      );
      if (!expected) this.problems.push(`console error: ${text}${where ? ` (${where})` : ""}`);
    });
    page.on("pageerror", (error) => this.problems.push(`page error: ${error.message}`));
  }

  /**
   * Answers of `status` from URLs matching `url` are expected from now on, not problems: Chromium
   * logs every failed fetch as a console error, also one the page asked knowing it may fail (the
   * explorer's search asks the routes in turn whether they know an ID).
   */
  expectFailedLoads(status: number, url: RegExp): void {
    this.expectedFailures.push({ status, url });
  }

  /** Navigates to a dashboard path ("/dashboard/peers") and waits for the app's shell. */
  async goto(path: string): Promise<void> {
    const res = await this.page.goto(`${this.base}${path}`, { waitUntil: "load" });
    assert.ok(res, `an answer for ${path}`);
    assert.equal(res.status(), 200, `${path}: ${res.status()}`);
    // the shell is rendered (the navigation may be folded away on a narrow screen)
    await this.page.locator("#site-nav").waitFor({ state: "attached" });
  }

  /**
   * A screenshot into `test-output/screenshots/<name>.png`, axe-core over the page (serious and
   * critical violations fail), and no console or page error so far.
   */
  async check(name: string): Promise<void> {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await this.page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    const violations = await axeViolations(this.page);
    assert.deepEqual(violations, [], `${name}: accessibility violations:\n${violations.join("\n")}`);
    assert.deepEqual(this.problems, [], `${name}: errors on the page:\n${this.problems.join("\n")}`);
  }

  /** The text of the element with `data-stat=<key>` (a value of a Stats list). */
  async stat(key: string): Promise<string> {
    return (await this.page.locator(`[data-stat="${key}"]`).first().innerText()).trim();
  }
}

let axeSource: string | undefined;

/**
 * axe-core's serious and critical violations on the page, one line each. Its source is
 * evaluated in the page through the DevTools protocol, which the page's CSP does not govern.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const found = (await page.evaluate(`axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
      resultTypes: ["violations"],
    }).then((r) => r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    })))`)) as { id: string; impact: string | null; help: string; targets: string[] }[];
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(", ")}`);
}

/** A dev node process and a browser for one test file. */
export class DashboardSession {
  private readonly pages: WatchedPage[] = [];

  private constructor(
    readonly node: NodeProcess,
    readonly browser: Browser,
    private readonly context: BrowserContext,
  ) {}

  /**
   * Starts a dev node (`flags` added; milestones every `--milestone-interval`) and waits until it
   * is `ready` (by default healthy), then launches Chromium. Everything started is stopped again
   * if a step fails.
   */
  static async start(
    name: string,
    flags: string[] = [],
    ready: (node: NodeProcess) => Promise<unknown> = (node) => node.waitHealthy(30_000),
  ): Promise<DashboardSession> {
    const node = await NodeProcess.create(name, flags);
    let browser: Browser | undefined;
    try {
      node.start();
      await ready(node);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: DESKTOP_VIEWPORT, colorScheme: "light" });
      return new DashboardSession(node, browser, context);
    } catch (e) {
      await browser?.close();
      await node.dispose();
      throw e;
    }
  }

  /** A new watched page in the session's context (shared storage: a JWT kept by one page is seen by the next). */
  async newPage(): Promise<WatchedPage> {
    const page = new WatchedPage(await this.context.newPage(), this.node.url);
    this.pages.push(page);
    return page;
  }

  /** A new watched page in a context of its own with `viewport` (a phone's, say). */
  async newIsolatedPage(viewport = PHONE_VIEWPORT): Promise<WatchedPage> {
    const context = await this.browser.newContext({ viewport, colorScheme: "light", isMobile: true, hasTouch: true });
    const page = new WatchedPage(await context.newPage(), this.node.url);
    this.pages.push(page);
    return page;
  }

  /** Closes the pages, the browser and the node (its data directory removed). */
  async close(): Promise<void> {
    for (const p of this.pages) await p.page.close().catch(() => undefined);
    await this.browser.close().catch(() => undefined);
    await this.node.dispose();
  }
}
