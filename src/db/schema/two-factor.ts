import { integer, sqliteTable } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";

/**
 * The last TOTP time step accepted per user: RFC 6238 §5.2 says a verifier must not accept the
 * same code twice, so a code is refused once its step (or a later one) has been used.
 */
export const userOtpState = sqliteTable("user_otp_state", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  lastUsedStep: integer("last_used_step").notNull(),
});
