import preact from "@preact/preset-vite";
import { defineConfig, type Plugin } from "vite";

/**
 * The dashboard's build: a static bundle in `dist/web` that the node serves at `/dashboard/`
 * (src/api/dashboard.ts). Every asset is bundled (no CDN: the dashboard works offline) under
 * `assets/` with a content hash in its name, which is what lets the node cache them for a year.
 * Run by scripts/build-web.mjs, which builds only when the sources changed.
 */
const webRoot = decodeURIComponent(new URL(".", import.meta.url).pathname);

/**
 * force-graph and float-tooltip (the live tangle's graph) inject their CSS as a <style> element
 * when loaded, which the dashboard's CSP (`style-src 'self'`, src/api/dashboard.ts) refuses with
 * a console error. The injection is cut out of them here; the rules they need are in
 * src/tangle/tangle.css. A version that injects differently fails the build instead of the CSP.
 */
function noStyleInjection(): Plugin {
  const inject = /\bstyleInject\(css_[0-9a-z]+\);/g;
  return {
    name: "ledger-node:no-style-injection",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]node_modules[\\/](force-graph|float-tooltip)[\\/]/.test(id)) return undefined;
      const out = code.replace(inject, "");
      // the styleInject helper is left in, unused; a <style> made any other way is not
      const injectsOtherwise = /createElement\(['"]style['"]\)/.test(code) && !/function styleInject\(/.test(code);
      if (/\bstyleInject\(css_/.test(out) || injectsOtherwise)
        this.error(`${id} still injects a <style> element, which the dashboard's CSP refuses`);
      return { code: out, map: null };
    },
  };
}

export default defineConfig({
  root: webRoot,
  base: "/dashboard/",
  plugins: [preact(), noStyleInjection()],
  // the build is driven by scripts/build-web.mjs with its own output folder
  logLevel: "warn",
  build: {
    outDir: `${webRoot}../dist/web`,
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    sourcemap: false,
    // the MQTT client alone is about 350 kB before compression
    chunkSizeWarningLimit: 1024,
  },
});
