import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DashboardSession } from "./helpers/browser.js";

/**
 * The dashboard's shell in Chromium against a real dev node process: it loads at `/dashboard`,
 * its navigation moves between pages without a reload, a deep link reloads to the same page,
 * an unknown page says so, the header shows the network and the sync state, the navigation
 * collapses behind a menu button on a phone's screen; no console error and no serious axe
 * violation on any of them.
 */

describe("the dashboard's shell in a browser", { timeout: 90_000 }, () => {
  let s: DashboardSession;

  before(async () => {
    s = await DashboardSession.start("shell");
  });
  after(async () => {
    await s?.close();
  });

  it("loads at /dashboard with its navigation, network name and sync state", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard");
    const nav = p.page.getByRole("navigation", { name: "Main" });
    const links = await nav.getByRole("link").allInnerTexts();
    assert.deepEqual(
      links.map((t) => t.trim()),
      ["Home", "Explorer", "Live tangle", "Peers", "Faucet", "Spammer"],
    );
    assert.equal(await nav.getByRole("link", { name: "Home" }).getAttribute("aria-current"), "page");
    await p.page.locator("[data-network]").getByText("dev").waitFor();
    await p.page.locator('[data-synced="true"]').waitFor();
    assert.equal(await p.page.getByRole("heading", { level: 1 }).innerText(), "Node");
    await p.check("shell-home");
  });

  it("navigates in the page, and a deep link reloads to the same page", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard");
    // a marker on window survives client-side navigation only
    await p.page.evaluate("window.__sameDocument = true");
    await p.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Faucet" }).click();
    await p.page.waitForURL(`${s.node.url}/dashboard/faucet`);
    await p.page.getByRole("heading", { level: 1, name: "Faucet" }).waitFor();
    assert.equal(await p.page.evaluate("window.__sameDocument === true"), true, "no full page load");

    await p.goto("/dashboard/peers");
    await p.page.getByRole("heading", { level: 1, name: "Peers" }).waitFor();
    await p.page.reload();
    assert.equal(p.page.url(), `${s.node.url}/dashboard/peers`);
    await p.page.getByRole("heading", { level: 1, name: "Peers" }).waitFor();
    assert.equal(
      await p.page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: "Peers" })
        .getAttribute("aria-current"),
      "page",
    );
    await p.check("shell-peers-deep-link");

    await p.goto("/dashboard/explorer/block/0x00");
    await p.page.getByRole("heading", { level: 1, name: "Block" }).waitFor();
    await p.page.getByText('"0x00" is no block ID').waitFor();
    await p.goto("/dashboard/no/such/page");
    await p.page.getByRole("heading", { level: 1, name: "Page not found" }).waitFor();
    await p.check("shell-not-found");
  });

  it("collapses the navigation behind a menu button on a phone's screen", async () => {
    const p = await s.newIsolatedPage();
    await p.goto("/dashboard");
    const menu = p.page.getByRole("button", { name: "Menu" });
    await menu.waitFor();
    const nav = p.page.getByRole("navigation", { name: "Main" });
    assert.equal(await nav.isVisible(), false, "the navigation is folded");
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    await menu.click();
    await nav.getByRole("link", { name: "Peers" }).waitFor({ state: "visible" });
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await p.check("shell-phone-menu");
    await nav.getByRole("link", { name: "Peers" }).click();
    await p.page.getByRole("heading", { level: 1, name: "Peers" }).waitFor();
    assert.equal(await nav.isVisible(), false, "choosing a page folds the menu again");
  });

  it("answers every dashboard path but a missing asset with the app, and serves the assets cached", async () => {
    const page = await fetch(`${s.node.url}/dashboard/explorer/address/tst1xyz`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("cache-control"), "no-cache");
    const html = await page.text();
    const script = /<script type="module" crossorigin src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${s.node.url}${script}`);
    assert.equal(asset.status, 200);
    assert.match(String(asset.headers.get("content-type")), /javascript/);
    assert.match(String(asset.headers.get("cache-control")), /max-age=31536000.*immutable/);
    const missing = await fetch(`${s.node.url}/dashboard/assets/missing-0000.js`);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: { details: string } }).error.details, /no file/);
  });
});
