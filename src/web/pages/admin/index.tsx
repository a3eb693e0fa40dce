import { renderPage } from "../../page";
import { notFoundPage } from "../not-found";
import adminApplication from "./application";
import adminApplications from "./applications";
import adminLockout from "./lockout";
import adminUser from "./user";
import adminUserTwoFactor from "./user-two-factor";
import adminUsers from "./users";
import adminUserNew from "./user-new";
import adminUserEdit from "./user-edit";
import { pageApp } from "../../door";

/**
 * The admin area, GitLab's paths: `/admin` (this overview), `/admin/users`, `/admin/applications`.
 * The guard is registered once here, before every admin route.
 */
const admin = pageApp({ enter: "administrator" });

admin.get("/admin", (c) =>
  renderPage(
    c,
    "Admin area",
    <>
      <h1>Admin area</h1>
      <ul class="links">
        <li>
          <a href="/admin/users">Users</a>: search, create and edit accounts; block, unblock, deactivate, activate, unlock, delete.
        </li>
        <li>
          <a href="/admin/applications">Applications</a>: instance-wide OAuth applications, including the ones clients registered themselves.
        </li>
      </ul>
    </>,
  ),
);

admin.route("/", adminUsers);
admin.route("/", adminUserTwoFactor);
// Before /admin/users/:username, whose pattern would take "new".
admin.route("/", adminUserNew);
admin.route("/", adminUser);
admin.route("/", adminUserEdit);
admin.route("/", adminLockout);
admin.route("/", adminApplications);
admin.route("/", adminApplication);
// Last: any other path of the area is behind the same door (a visitor signs in first, a user who
// is not an administrator learns nothing), then "Page not found".
admin.get("/admin/*", (c) => notFoundPage(c));

export default admin;
