import type { UserRow } from "../../db/users";
import { listAuthorizedApplications, revokeUserAuthorizationsForApplication, type AuthorizedApplication } from "../../services/authorizations";
import { pageWindow, toConnection, type ConnectionArgs } from "../connection";
import { notAvailable, requireWrite, type GqlContext } from "../context";
import { parseGid, toGid } from "../schema/global-id";

/**
 * CurrentUser.authorizedApplications and authorizedApplicationRevoke: what the authorized
 * applications page (/profile/applications) shows and its Revoke button does, through the same
 * functions of src/services/authorizations.ts. Only ever the caller's own grants.
 */
export const authorizedApplicationResolvers = {
  CurrentUser: {
    id: (u: UserRow) => toGid("User", u.id),
    webUrl: (u: UserRow, _: unknown, ctx: GqlContext) => `${ctx.origin}/${u.username}`,
    authorizedApplications: async (u: UserRow, args: ConnectionArgs, ctx: GqlContext) => {
      // currentUser resolves to the caller only; the check keeps it so if that ever changes.
      if (!ctx.principal || ctx.principal.user.id !== u.id) return null;
      // One user's authorized applications are few: the whole list, then the page.
      const all = await listAuthorizedApplications(ctx.env, u.id);
      const w = pageWindow(args, all.length);
      return toConnection(all.slice(w.offset, w.offset + w.limit), w, all.length);
    },
  },
  AuthorizedApplication: {
    id: (a: AuthorizedApplication) => a.application.id,
    name: (a: AuthorizedApplication) => a.application.name,
    uid: (a: AuthorizedApplication) => a.application.uid,
  },
  Mutation: {
    authorizedApplicationRevoke: async (_: unknown, { input }: { input: { id: string; clientMutationId?: string } }, ctx: GqlContext) => {
      const principal = requireWrite(ctx);
      const applicationId = parseGid(input.id, "Authn::OauthApplication", "AuthnOauthApplicationID");
      const granted = (await listAuthorizedApplications(ctx.env, principal.user.id)).some((a) => a.application.id === applicationId);
      if (!granted) throw notAvailable();
      const revokedGrants = await revokeUserAuthorizationsForApplication(ctx.env, principal.user.id, applicationId);
      return { revokedGrants, errors: [], clientMutationId: input.clientMutationId ?? null };
    },
  },
};
