// The issuer belongs to every family (pages show it, the registry signs with it): it lives in
// src/http/issuer.ts; the OAuth modules keep importing it from here.
export { issuerFor, issuerOf } from "../http/issuer";
