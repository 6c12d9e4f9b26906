// The browser tests (test/browser) drive Debian's Chromium at /usr/bin/chromium (or CHROMIUM_PATH).
// On a machine without it, `npm test` installs Debian's `chromium` package when it may (as root, or
// with sudo that asks no password, where apt-get exists) and says what it does; otherwise it says
// how to install it, and the browser tests fail with the same words.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const INSTALL = "apt-get update -q && apt-get install -y -q chromium";

const run = (cmd, args) =>
  spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0;
const quiet = (cmd, args) => spawnSync(cmd, args, { stdio: "ignore" }).status === 0;

/** Makes sure Chromium is there; true when it is (found or installed). */
export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return true;
  const root = process.getuid?.() === 0;
  const sudo = !root && quiet("sudo", ["-n", "true"]);
  if (!quiet("sh", ["-c", "command -v apt-get"]) || (!root && !sudo)) {
    console.error(
      `Chromium is missing at ${CHROMIUM_PATH}; the browser tests need it. Install it with 'sudo sh -c "${INSTALL}"' ` +
        "(or set CHROMIUM_PATH to a Chromium of your own).",
    );
    return false;
  }
  console.log(`Chromium is missing at ${CHROMIUM_PATH}: installing Debian's chromium package for the browser tests`);
  const ok = root ? run("sh", ["-c", INSTALL]) : run("sudo", ["-n", "sh", "-c", INSTALL]);
  return ok && existsSync(CHROMIUM_PATH);
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureChromium() ? 0 : 1);
