/**
 * The one place src/oauth reaches into the pages (src/web): the page door, for the two OAuth
 * endpoints a person's browser is on, /oauth/authorize and the device verification page
 * /oauth/device (test/architecture/route-families.test.ts keeps it the only one).
 */
export { CsrfField, Flash, pageApp, pageVisit, type PageDoor, type PageEnv } from "../web/door";
