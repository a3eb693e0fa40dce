import { getDb } from "../../db/client";
import { findUserByUsername } from "../../db/users";
import { userRoute } from "../../http/router";
import { renderPage, type PageEnv } from "../page";
import { notFoundPage } from "./not-found";
import { pageApp } from "../door";

/**
 * /<username> (GitLab's path, the `web_url` of every user the APIs return, and the "address of
 * your profile page" the consent page names): who the user is. Shown to anyone, as GitLab's public
 * profiles are; no e-mail address. The router sends every top-level path that is not reserved
 * here (src/http/router.ts, userRoute), so no page path is ever taken for a username.
 */
const userProfile = pageApp({ enter: "anyone" });

userProfile.get(userRoute(), async (c) => {
  const username = c.req.param("username") ?? "";
  const user = await findUserByUsername(getDb(c.env.DB), username);
  if (!user) return notFoundPage(c);
  return renderPage(
    c,
    `${user.name} (@${user.username})`,
    <>
      <h1>
        <bdi>{user.name}</bdi>
      </h1>
      <p class="muted">
        <span class="id">@{user.username}</span>
        {user.isAdmin ? <span class="badge">Administrator</span> : null}
        {user.state !== "active" ? <span class="badge">{user.state}</span> : null}
      </p>
      <dl>
        <dt>Member since</dt>
        <dd>{new Date(user.createdAt).toISOString().slice(0, 10)}</dd>
      </dl>
    </>,
  );
});

export default userProfile;
