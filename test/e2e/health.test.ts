import { expect, inject, it } from "vitest";

it("npm start serves GET /-/health with 200 (README, set-up)", async () => {
  const res = await fetch(`${inject("baseURL")}/-/health`);
  expect(res.status).toBe(200);
});
