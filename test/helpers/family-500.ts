import { expect } from "vitest";

/** DESIGN convention 2: what each API family's 500 looks like (its shape, and never a stack). */
const noStack = (text: string) => expect(text).not.toMatch(/\bat .*\(|TypeError|\.ts:\d+/);

async function json500(res: Response) {
  expect(res.status).toBe(500);
  const text = await res.text();
  noStack(text);
  return JSON.parse(text);
}

async function html500(res: Response) {
  expect(res.status).toBe(500);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  noStack(await res.text());
}

export const expect500 = {
  rest: async (res: Response) => expect(await json500(res)).toEqual({ message: "500 Internal Server Error" }),
  oauth: async (res: Response) => expect(await json500(res)).toMatchObject({ error: "server_error" }),
  graphql: async (res: Response) => expect((await json500(res)).errors).toEqual([{ message: "Internal server error" }]),
  connect: async (res: Response) => expect(await json500(res)).toMatchObject({ code: "internal" }),
  registry: async (res: Response) => expect(Array.isArray((await json500(res)).errors)).toBe(true),
  page: html500,
  git: async (res: Response) => {
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("Internal server error\n");
  },
};
