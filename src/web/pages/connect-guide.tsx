import type { ApplicationRow } from "../../db/applications";
import { registeredUris } from "../../domain/redirect-uri";
import { CopyableCode } from "../components";

/**
 * How an app developer connects an application (shown under its details): the issuer, the
 * discovery document every OpenID Connect library starts from, and a short snippet with
 * openid-client (docs/oidc.md has the whole walk-through). The secret is never repeated here.
 */
export function ConnectGuide({ app, issuer }: { app: ApplicationRow; issuer: string }) {
  const discovery = `${issuer}/.well-known/openid-configuration`;
  const redirect = registeredUris(app.redirectUri)[0] ?? "https://app.example/callback";
  const secretArg = app.confidential ? ", process.env.CLIENT_SECRET" : "";
  const snippet = [
    `import * as client from "openid-client";`,
    ``,
    `const config = await client.discovery(new URL("${issuer}"), "${app.uid}"${secretArg});`,
    `const verifier = client.randomPKCECodeVerifier();`,
    `const url = client.buildAuthorizationUrl(config, {`,
    `  redirect_uri: "${redirect}",`,
    `  scope: "${app.scopes}",`,
    `  code_challenge: await client.calculatePKCECodeChallenge(verifier),`,
    `  code_challenge_method: "S256",`,
    `});`,
    `// Send the browser to url; on the callback:`,
    `const tokens = await client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier });`,
  ].join("\n");
  return (
    <section class="card" aria-labelledby="connect-heading">
      <h2 id="connect-heading">Connect your application</h2>
      <dl>
        <dt>Issuer</dt>
        <dd>
          <CopyableCode id="issuer" value={issuer} copyLabel="Copy issuer" />
        </dd>
        <dt>Discovery URL</dt>
        <dd>
          <CopyableCode id="discovery-url" value={discovery} copyLabel="Copy URL" />
        </dd>
      </dl>
      <p>Any OpenID Connect or OAuth 2.0 library configures itself from the discovery URL. With openid-client (Node.js):</p>
      <pre class="snippet">
        <code>{snippet}</code>
      </pre>
      <p>
        More in <a href="/help">Help</a>: the endpoints, scopes, and GitLab's API that the tokens open.
      </p>
    </section>
  );
}
