import type { Bindings } from "../env";
import { ensureRootUser } from "./root-user";
import { ensureDemoSpa } from "./demo-spa";
import { ensureDemoData } from "./demo-data";
import { ensureSigningKeys } from "../credentials/signing-keys";

/**
 * What a fresh service does on its first request, once per isolate, idempotently in storage:
 * the initial administrator, the OpenID Connect signing keys, then (when SEED_DEMO_DATA is "true", as `npm start` sets) demo data.
 */
type Seeder = (env: Bindings) => Promise<void>;
const SEEDERS: Seeder[] = [ensureRootUser, ensureSigningKeys, ensureDemoSpa, ensureDemoData];

const started = new WeakMap<object, Promise<void>>();

export function ensureFirstStart(env: Bindings): Promise<void> {
  let p = started.get(env);
  if (!p) {
    p = (async () => {
      for (const seed of SEEDERS) await seed(env);
    })();
    // A failed start is retried by the next request rather than remembered.
    p.catch(() => started.delete(env));
    started.set(env, p);
  }
  return p;
}
