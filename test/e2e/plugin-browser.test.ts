import { buildSync } from "esbuild";
import { createServer, type Server } from "node:http";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./browser";
import { enc, header, pluginClient, rootToken } from "./plugin-helpers";

/**
 * @connectrpc/connect-web in Chromium calls Call and Chat. The page is served by this test from
 * another loopback origin (so the Worker's CORS for /proto.Plugin/* is exercised too), with a
 * client bundled by esbuild from test/e2e/plugin-browser-client.ts.
 */
const baseURL = inject("baseURL");
let token = "";
let browser: Browser;
let server: Server;
let page: Page;

beforeAll(async () => {
  token = await rootToken(baseURL, inject("rootPassword"));
  const bundle = buildSync({
    entryPoints: [path.join(__dirname, "plugin-browser-client.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
  }).outputFiles[0].text;
  server = createServer((req, res) => {
    if (req.url === "/client.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(bundle);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><title>plugin demo</title><script src="/client.js"></script>');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => (globalThis as any).pluginDemo !== undefined);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

describe("connect-web in Chromium: Plugin RPC from a browser", () => {
  for (const protocol of ["connect", "connect-json", "grpc-web"] as const) {
    it(`${protocol}: Call core ping from the page`, async () => {
      const out = await page.evaluate(
        ([base, tok, proto]) => (globalThis as any).pluginDemo.call(base, tok, proto, "ping", "from the browser"),
        [baseURL, token, protocol] as const,
      );
      expect(out).toEqual({ code: 0, desc: "", data: "from the browser", from: "core", func: "ping" });
    });

    it(`${protocol}: Chat topic.subscribe in the page receives messages one by one`, async () => {
      const topic = `browser-${protocol}-${Date.now()}`;
      await page.evaluate(
        ([base, tok, proto, t]) => {
          (globalThis as any).subscriptions[t] = (globalThis as any).pluginDemo.subscribe(base, tok, proto, t, 3);
        },
        [baseURL, token, protocol, topic] as const,
      );
      await page.waitForFunction((t) => (globalThis as any).subscriptions[t].ready, topic);
      const publisher = pluginClient("connect", baseURL, token);
      for (let i = 1; i <= 3; i++) {
        if (i > 1) await new Promise((r) => setTimeout(r, 300));
        const res = await publisher.call({ Header: header({ Func: "topic.publish" }), Data: enc(JSON.stringify({ topic, message: `b${i}` })) });
        expect(res.Code).toBe(0);
      }
      await page.waitForFunction((t) => (globalThis as any).subscriptions[t].done, topic);
      const state = await page.evaluate((t) => (globalThis as any).subscriptions[t], topic);
      expect(state.error).toBe("");
      expect(state.arrivals.map((a: { text: string }) => a.text)).toEqual(["b1", "b2", "b3"]);
      for (let i = 1; i < 3; i++) expect(state.arrivals[i].at - state.arrivals[i - 1].at).toBeGreaterThanOrEqual(150);
    });
  }
});
