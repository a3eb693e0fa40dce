-- Applications of Client ID Metadata Documents are stored only when a person approves them
-- (src/oauth/client-metadata/resolve.ts, docs/agents.md "Document clients"). Earlier versions
-- stored one at every first fetch, anonymous requests included: those that hold no grant (no
-- token family, no device grant) were never approved and are removed once.
DELETE FROM `oauth_applications`
WHERE `metadata_expires_at` IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM `oauth_token_families` f WHERE f.`application_id` = `oauth_applications`.`id`)
  AND NOT EXISTS (SELECT 1 FROM `oauth_device_grants` d WHERE d.`application_id` = `oauth_applications`.`id`);
