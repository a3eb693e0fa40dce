import { chromium, type Browser } from "playwright-core";

/**
 * The one way an end-to-end file starts Chromium (docs/testing.md, "Why it is fast"): Debian's
 * headless build, `chromium-headless-shell` (the same Chromium, Blink and network stack as the
 * `chromium` package, without the desktop browser around them; the build Playwright itself runs
 * headless). Measured on this project's pages (2026-11-27, CPU of Chromium's processes): a launch
 * 0.2 s against 1 s for `/usr/bin/chromium --headless`, a browser context 0.07 s against 0.45 s, a
 * page load half. Flags did not come near it (`--disable-site-isolation-trials`, `--in-process-gpu`,
 * `--disable-gpu-compositing`: within the noise). CHROMIUM_PATH runs the tests on another build,
 * e.g. `CHROMIUM_PATH=/usr/bin/chromium` for the desktop one.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium-headless-shell";

/** No sandbox (tests run as root in containers); nothing in the background that no test reads. */
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
