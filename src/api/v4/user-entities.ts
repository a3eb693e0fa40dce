import { avatarUrl } from "../../services/accounts/avatar";
import type { UserRow } from "../../db/users";
import { iso } from "./load";

/**
 * GitLab's user entities (API::Entities::UserBasic, User, UserPublic, UserWithAdmin). Fields this
 * service has no data for carry GitLab's empty values, so clients that read them keep working.
 */
function isLockedNow(user: UserRow): boolean {
  return user.lockedUntil !== null && user.lockedUntil > Date.now();
}

/** UserBasic: what anyone signed in may see of anyone. */
export async function userBasic(user: UserRow, origin: string) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: isLockedNow(user),
    avatar_url: await avatarUrl(user),
    web_url: `${origin}/${user.username}`,
  };
}

/** User: the public profile. */
export async function userProfile(user: UserRow, origin: string) {
  return {
    ...(await userBasic(user, origin)),
    created_at: iso(user.createdAt),
    bio: "",
    location: "",
    public_email: null,
    skype: "",
    linkedin: "",
    twitter: "",
    discord: "",
    website_url: "",
    organization: "",
    job_title: "",
    pronouns: null,
    bot: false,
    work_information: null,
    followers: 0,
    following: 0,
    is_followed: false,
    local_time: null,
  };
}

/** UserPublic (GET /user, and admins' view of anyone); is_admin only in an administrator's view. */
export async function userPrivate(user: UserRow, origin: string, viewerIsAdmin: boolean) {
  return {
    ...(await userProfile(user, origin)),
    last_sign_in_at: iso(user.lastSignInAt),
    confirmed_at: iso(user.createdAt),
    last_activity_on: user.lastSignInAt === null ? null : iso(user.lastSignInAt)!.slice(0, 10),
    email: user.email,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: 100000,
    current_sign_in_at: iso(user.lastSignInAt),
    identities: [],
    can_create_group: true,
    can_create_project: true,
    two_factor_enabled: user.otpRequired,
    external: false,
    private_profile: false,
    commit_email: user.email,
    ...(viewerIsAdmin ? { is_admin: user.isAdmin, note: null, namespace_id: null, using_license_seat: false } : {}),
  };
}
