import { Hono } from "hono";
import { z } from "zod";
import { getDb } from "../../db/client";
import { findSshKey, listSshKeys, SSH_KEY_USAGE_TYPES, type SshKeyRow } from "../../db/ssh-keys";
import { findUserById } from "../../db/users";
import type { AppEnv } from "../../env";
import { addSshKey, removeSshKey, setDpopEnabled } from "../../services/ssh-keys";
import { READ_USER } from "./user";
import { READ_API, WRITE_API, requestActor, requireAuth } from "./auth";
import { ApiError, invalidParam, notFound } from "./errors";
import { iso } from "./load";
import { boolParam, idParam } from "./params";
import { validateParams } from "./validate";

/**
 * GitLab's SSH keys API (/user/keys, /users/:id/keys) and the user preference that binds the
 * user's personal access tokens to their signing keys (dpop_enabled; docs/oauth.md).
 */
const keys = new Hono<AppEnv>();

function keyEntity(k: SshKeyRow) {
  return {
    id: k.id,
    title: k.title,
    created_at: iso(k.createdAt),
    expires_at: k.expiresAt === null ? null : iso(k.expiresAt),
    last_used_at: null,
    key: k.key,
    usage_type: k.usageType,
  };
}

keys.get("/user/keys", requireAuth(READ_USER), async (c) => {
  const rows = await listSshKeys(getDb(c.env.DB), c.get("principal").user.id);
  return c.json(rows.map(keyEntity));
});

keys.get("/user/keys/:key_id", requireAuth(READ_USER), async (c) => {
  const id = idParam.safeParse(c.req.param("key_id"));
  if (!id.success) throw invalidParam("key_id");
  const row = await findSshKey(getDb(c.env.DB), c.get("principal").user.id, id.data);
  if (!row) throw notFound("Key Not Found");
  return c.json(keyEntity(row));
});

const NewKey = z.object({
  title: z.string().min(1).max(255),
  key: z.string().min(1).max(16384),
  expires_at: z.string().max(64).optional(),
  usage_type: z.enum(SSH_KEY_USAGE_TYPES).optional(),
});

keys.post("/user/keys", requireAuth(WRITE_API), validateParams(NewKey), async (c) => {
  const input = c.req.valid("json");
  const expiresAt = input.expires_at === undefined ? null : Date.parse(input.expires_at);
  if (expiresAt !== null && Number.isNaN(expiresAt)) throw invalidParam("expires_at");
  const added = await addSshKey(c.env, requestActor(c), {
    userId: c.get("principal").user.id,
    title: input.title,
    key: input.key,
    usageType: input.usage_type ?? "auth_and_signing",
    expiresAt,
  });
  if (!added.ok) throw new ApiError(400, { message: added.errors });
  return c.json(keyEntity(added.row), 201);
});

keys.delete("/user/keys/:key_id", requireAuth(WRITE_API), async (c) => {
  const id = idParam.safeParse(c.req.param("key_id"));
  if (!id.success) throw invalidParam("key_id");
  const row = await findSshKey(getDb(c.env.DB), c.get("principal").user.id, id.data);
  if (!row || !(await removeSshKey(c.env, requestActor(c), row))) throw notFound("Key Not Found");
  return c.body(null, 204);
});

/** GitLab: anyone may list a user's public keys (public data). */
keys.get("/users/:id/keys", requireAuth(READ_API), async (c) => {
  const id = idParam.safeParse(c.req.param("id"));
  if (!id.success) throw invalidParam("id");
  const db = getDb(c.env.DB);
  const user = await findUserById(db, id.data);
  if (!user) throw notFound("User Not Found");
  return c.json((await listSshKeys(db, user.id)).map(keyEntity));
});

function preferencesEntity(userId: number, dpopEnabled: boolean) {
  return { user_id: userId, view_diffs_file_by_file: false, show_whitespace_in_diffs: true, pass_user_identities_to_ci_jwt: false, dpop_enabled: dpopEnabled };
}

keys.get("/user/preferences", requireAuth(READ_USER), async (c) => {
  const me = c.get("principal").user;
  return c.json(preferencesEntity(me.id, me.dpopEnabled));
});

const Preferences = z.object({ dpop_enabled: boolParam.optional() }).passthrough();

keys.put("/user/preferences", requireAuth(WRITE_API), validateParams(Preferences), async (c) => {
  const me = c.get("principal").user;
  const input = c.req.valid("json");
  let enabled = me.dpopEnabled;
  if (input.dpop_enabled !== undefined && input.dpop_enabled !== enabled) {
    enabled = input.dpop_enabled;
    await setDpopEnabled(c.env, requestActor(c), me.id, enabled);
  }
  return c.json(preferencesEntity(me.id, enabled));
});

export default keys;
