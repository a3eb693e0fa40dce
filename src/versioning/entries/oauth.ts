import type { CatalogueEntry } from "../catalogue-entry";

/** Announced changes of the OAuth service (oauth-service.md, Versioning). */
const M15 = "2022-05-22";

export const OAUTH_CHANGES: CatalogueEntry[] = [
  {
    id: "oauth-implicit-grant",
    interface: "oauth",
    title: "OAuth implicit grant (response_type=token)",
    change: "GET /oauth/authorize with response_type=token is refused with unsupported_response_type.",
    deprecatedIn: "14.0",
    removedIn: "15.0",
    date: M15,
    replacement: "Authorization code with PKCE",
    affectsApi: true,
  },
  {
    id: "oauth-tokens-without-expiry",
    interface: "oauth",
    title: "OAuth access tokens without expiry",
    change:
      "Every access token has an expiry: applications without 'Expire access tokens' issue expiring tokens, and stored tokens without one get one.",
    deprecatedIn: "14.3",
    removedIn: "15.0",
    date: M15,
    replacement: "Enable 'Expire access tokens' on the application and use refresh tokens",
    affectsApi: true,
  },
  {
    id: "oauth-token-info-aliases",
    interface: "oauth",
    title: "Fields scopes and expires_in_seconds of GET /oauth/token/info",
    change: "The deprecated aliases are removed in a later release.",
    deprecatedIn: null,
    removedIn: null,
    date: null,
    replacement: "scope and expires_in",
    affectsApi: true,
  },
];

