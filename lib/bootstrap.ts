import "server-only";
import { eq, sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { transaction } from "./events";
import { groupUsers, groups, settings, users } from "./db/schema";
import { hashPassword } from "./auth/password";
import { passwordSchema } from "./validation";

export const ADMIN_GROUP = "admin";
export const ADMIN_USER = "admin";

/** A password that satisfies the password rules: upper, lower, digit, special, 20 chars. */
export function generatePassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  const bytes = randomBytes(16);
  let core = "";
  for (const b of bytes) core += alphabet[b % alphabet.length];
  return `${core.slice(0, 6)}-${core.slice(6, 11)}-${core.slice(11)}Aa9!`;
}

/**
 * First start: the settings row, the `admin` group (is_admin) and the `admin` user. Runs once
 * per database (settings.initialized_at), under an advisory lock so that several processes
 * starting together do it once. Returns the generated password when one was generated.
 */
export async function bootstrap(): Promise<{ createdAdmin: boolean; generatedPassword: string | null }> {
  return transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7240119)`);
    await tx.insert(settings).values({ id: 1 }).onConflictDoNothing();
    const [s] = await tx.select().from(settings).where(eq(settings.id, 1));
    if (s.initializedAt) return { createdAdmin: false, generatedPassword: null };

    const fromEnv = process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD;
    if (fromEnv) {
      const check = passwordSchema.safeParse(fromEnv);
      if (!check.success) {
        throw new Error(
          "DEFGUARD_DEFAULT_ADMIN_PASSWORD does not meet the password rules (8-128 chars, upper, lower, digit, special)",
        );
      }
    }
    const password = fromEnv || generatePassword();

    let [group] = await tx.select().from(groups).where(eq(groups.name, ADMIN_GROUP));
    if (!group) [group] = await tx.insert(groups).values({ name: ADMIN_GROUP, isAdmin: true }).returning();
    let createdAdmin = false;
    let [admin] = await tx.select().from(users).where(sql`lower(${users.username}) = ${ADMIN_USER}`);
    if (!admin) {
      [admin] = await tx
        .insert(users)
        .values({
          username: ADMIN_USER,
          passwordHash: await hashPassword(password),
          firstName: "Default",
          lastName: "Admin",
          // A valid placeholder the admin changes in their profile (or set DEFGUARD_DEFAULT_ADMIN_EMAIL).
          email: process.env.DEFGUARD_DEFAULT_ADMIN_EMAIL || "admin@example.com",
        })
        .returning();
      createdAdmin = true;
    }
    await tx.insert(groupUsers).values({ groupId: group.id, userId: admin.id }).onConflictDoNothing();
    await tx.update(settings).set({ initializedAt: new Date() }).where(eq(settings.id, 1));
    return { createdAdmin, generatedPassword: createdAdmin && !fromEnv ? password : null };
  });
}
