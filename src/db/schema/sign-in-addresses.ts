import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/**
 * The client addresses (by throttle key: an IPv4 address, or an IPv6 /64) an account has completed
 * a sign-in from. While the account-wide guessing bound is exhausted, only these addresses may
 * still try a password or a second-factor code (src/services/accounts/account-guard.ts, docs/security.md).
 */
export const signInAddresses = sqliteTable(
  "sign_in_addresses",
  {
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    lastSignInAt: integer("last_sign_in_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.address] })],
);
