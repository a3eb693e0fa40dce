-- A self-registered client (POST /oauth/register) never holds sudo or admin_mode (docs/security.md
-- "Scopes"). Before the one scope parser, "api,sudo", "api+sudo" or "api<TAB>sudo" passed the
-- registration check and were stored as "api sudo"; this removes those scopes from every dynamic
-- client. Stored scope strings are single-space separated (formatScopes), so padding both ends
-- with a space makes every scope-token " x ".
UPDATE oauth_applications
SET scopes = TRIM(REPLACE(REPLACE(REPLACE(' ' || scopes || ' ', ' sudo ', ' '), ' admin_mode ', ' '), '  ', ' '))
WHERE dynamic = 1 AND (' ' || scopes || ' ' LIKE '% sudo %' OR ' ' || scopes || ' ' LIKE '% admin_mode %');
