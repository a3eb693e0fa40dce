/**
 * The packages the workers projects load pre-bundled (vitest.config.ts `deps.optimizer.ssr`,
 * docs/testing.md "Why it is fast"). A module of its own, without imports, so that
 * test/architecture/prebundled.test.ts can check it in workerd.
 *
 * Without pre-bundling, every runtime loads each package file by file through Vite (graphql,
 * drizzle-orm, zod, yaml, @graphql-tools, @peculiar/asn1-*: about 1,270 modules beside src's 430),
 * which was half of the 20-25 s a runtime took to start. Pre-bundled, a package is one module (and
 * shared chunks between packages, so one class is still one class across packages).
 *
 * Every package the Worker or a workers test imports must be listed: a package left out is loaded
 * file by file, and if it imports a listed one it gets a second copy of it (a second HTTPException
 * or ZodError class, and `instanceof` fails across the two). The architecture test checks it.
 */
export const PREBUNDLED = [
  "@bufbuild/protobuf",
  "@bufbuild/protobuf/codegenv2",
  "@cfworker/json-schema",
  "@connectrpc/connect",
  "@connectrpc/connect/protocol",
  "@connectrpc/connect/protocol-connect",
  "@connectrpc/connect/protocol-grpc-web",
  "@hono/zod-validator",
  "@peculiar/x509",
  "drizzle-orm",
  "drizzle-orm/d1",
  "drizzle-orm/sqlite-core",
  "fast-check",
  "graphql",
  "graphql-yoga",
  "hono",
  "hono/combine",
  "hono/cookie",
  "hono/cors",
  "hono/factory",
  "hono/html",
  "hono/http-exception",
  "hono/route",
  "hono/router",
  "hono/router/reg-exp-router",
  "hono/router/trie-router",
  "hono/validator",
  "jose",
  "qrcode-generator",
  "reflect-metadata",
  "yaml",
  "zod",
];
