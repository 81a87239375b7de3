import "server-only";
import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import { randomBytes, randomInt } from "node:crypto";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { getDb, type Tx } from "../db";
import { transaction } from "../events";
import { emailCodes, mfaSecrets, recoveryCodes, users, webauthnCredentials } from "../db/schema";
import { decryptSecret, encryptSecret, hmac, sha256hex } from "../crypto";
import { publicUrl, secret } from "../config";
import { AppError, badRequest, notFound, tooManyRequests, unauthorized } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { assertNotLocked, clearFailures, recordFailure } from "../auth/service";
import { promoteSession, requireFreshProof, setSessionData, type Session } from "../auth/session";
import { getSettings } from "../settings/service";
import { escapeHtml, sendMail, smtpConfigured, SMTP_NOT_CONFIGURED } from "../mail/service";
import { matchTotpStep, newTotpSecret, totpUri } from "./totp";
import type { ActivityEvent } from "../activity/events";

/**
 * @simplewebauthn/server is the heaviest package the console uses (several times pg's load
 * time): it is loaded with the first security-key call, not at start-up, which shortens a
 * restart and keeps it out of an idle process's memory.
 */
const webauthn = () => import("@simplewebauthn/server");

export const MSG = {
  invalidCode: "code is invalid",
  noPendingLogin: "no sign-in is waiting for a second factor",
  methodNotEnabled: "this authentication method is not enabled for the account",
  keyAlreadyRegistered: "key already registered",
  failedToReadKey: "failed to read key, try again",
  noTotpInit: "start TOTP setup first",
  codeRequestedTooSoon: "a code was sent a moment ago; wait before requesting another",
  invalidRecovery: "recovery code is invalid or already used",
  methodNotConfigured: "configure this method before making it the default",
} as const;

export const RECOVERY_CODE_COUNT = 8;
export const EMAIL_CODE_MINUTES = 10;
const EMAIL_RESEND_SECONDS = 30;

export type MfaMethod = "OneTimePassword" | "Webauthn" | "Email";

interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

// ---------------------------------------------------------------- shared state

async function methodsOf(tx: Tx, userId: number) {
  const [u] = await tx.select().from(users).where(eq(users.id, userId));
  if (!u) throw notFound("user not found");
  const [{ keys }] = await tx.select({ keys: count() }).from(webauthnCredentials).where(eq(webauthnCredentials.userId, userId));
  return { user: u, totp: u.totpEnabled, email: u.emailMfaEnabled, webauthn: keys > 0 };
}

/** Keep mfa_enabled / mfa_method consistent with the methods that exist. */
async function refreshMfaState(tx: Tx, userId: number) {
  const m = await methodsOf(tx, userId);
  const available: MfaMethod[] = [];
  if (m.totp) available.push("OneTimePassword");
  if (m.webauthn) available.push("Webauthn");
  if (m.email) available.push("Email");
  if (!available.length) {
    await tx.update(users).set({ mfaEnabled: false, mfaMethod: "None" }).where(eq(users.id, userId));
    return;
  }
  if (m.user.mfaEnabled && !available.includes(m.user.mfaMethod as MfaMethod)) {
    await tx.update(users).set({ mfaMethod: available[0] }).where(eq(users.id, userId));
  }
}

function newRecoveryCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  let s = "";
  for (const b of randomBytes(12)) s += alphabet[b % alphabet.length];
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8, 12)}`;
}

function recoveryHash(userId: number, code: string): string {
  return sha256hex(`${userId}:${code.replace(/[\s-]/g, "").toUpperCase()}`);
}

/** Recovery codes are issued the first time MFA is turned on (and again after a full reset). */
async function issueRecoveryCodesIfNone(tx: Tx, userId: number): Promise<string[] | null> {
  const [{ n }] = await tx.select({ n: count() }).from(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  if (n > 0) return null;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.insert(recoveryCodes).values(codes.map((c) => ({ userId, codeHash: recoveryHash(userId, c) })));
  return codes;
}

/** A method was configured: switch MFA on when it was off (this method becomes the default). */
async function methodAdded(tx: Tx, actor: Actor, userId: number, method: MfaMethod, event: ActivityEvent) {
  const [u] = await tx.select().from(users).where(eq(users.id, userId));
  if (!u.mfaEnabled) await tx.update(users).set({ mfaEnabled: true, mfaMethod: method }).where(eq(users.id, userId));
  const codes = await issueRecoveryCodesIfNone(tx, userId);
  await recordActivity(tx, actor, { event, description: u.mfaEnabled ? undefined : "MFA enabled" });
  return { codes };
}

// ---------------------------------------------------------------- TOTP

/** A new pending secret. Replacing a TOTP already in use needs a fresh proof (`proof`). */
export async function totpInit(actor: Actor, userId: number, proof: Pick<Session, "fresh">) {
  const s = await getSettings();
  const [u] = await getDb().select().from(users).where(eq(users.id, userId));
  if (u.totpEnabled) requireFreshProof(proof);
  const totpSecret = newTotpSecret();
  await getDb()
    .insert(mfaSecrets)
    .values({ userId, totpPendingEnc: encryptSecret(totpSecret) })
    .onConflictDoUpdate({ target: mfaSecrets.userId, set: { totpPendingEnc: encryptSecret(totpSecret) } });
  return { secret: totpSecret, uri: totpUri(totpSecret, s.instanceName, u.username) };
}

/** POST /auth/totp {code}: confirm the pending secret with a first code. */
export async function totpEnable(actor: Actor, userId: number, code: string, proof: Pick<Session, "fresh">) {
  return transaction(async (tx) => {
    const [current] = await tx.select({ totp: users.totpEnabled }).from(users).where(eq(users.id, userId));
    if (current?.totp) requireFreshProof(proof);
    const [row] = await tx.select().from(mfaSecrets).where(eq(mfaSecrets.userId, userId)).for("update");
    if (!row?.totpPendingEnc) throw badRequest(MSG.noTotpInit);
    const totpSecret = decryptSecret(row.totpPendingEnc);
    const step = await matchTotpStep(totpSecret, code);
    if (step === null) throw badRequest(MSG.invalidCode, "code");
    await tx
      .update(mfaSecrets)
      .set({ totpSecretEnc: row.totpPendingEnc, totpPendingEnc: null, totpLastStep: step })
      .where(eq(mfaSecrets.userId, userId));
    await tx.update(users).set({ totpEnabled: true }).where(eq(users.id, userId));
    return methodAdded(tx, actor, userId, "OneTimePassword", "mfa_totp_enabled");
  });
}

export async function totpDisable(actor: Actor, userId: number) {
  await transaction(async (tx) => {
    await tx.update(mfaSecrets).set({ totpSecretEnc: null, totpPendingEnc: null, totpLastStep: null }).where(eq(mfaSecrets.userId, userId));
    await tx.update(users).set({ totpEnabled: false }).where(eq(users.id, userId));
    await refreshMfaState(tx, userId);
    await recordActivity(tx, actor, { event: "mfa_totp_disabled" });
  });
}

/** Check a TOTP code for a user; refuses a step at or before the last accepted one (replay). */
export async function checkTotp(tx: Tx, userId: number, code: string): Promise<boolean> {
  const [row] = await tx.select().from(mfaSecrets).where(eq(mfaSecrets.userId, userId)).for("update");
  if (!row?.totpSecretEnc) return false;
  const step = await matchTotpStep(decryptSecret(row.totpSecretEnc), code);
  if (step === null || (row.totpLastStep !== null && step <= row.totpLastStep)) return false;
  await tx.update(mfaSecrets).set({ totpLastStep: step }).where(eq(mfaSecrets.userId, userId));
  return true;
}

// ---------------------------------------------------------------- e-mail codes

function emailCodeHash(userId: number, purpose: string, code: string) {
  return hmac(secret("secretKey"), `email-code:${userId}:${purpose}:${code}`);
}

/** What an e-mail code is for: signing in, turning e-mail codes on, or a desktop client's VPN MFA login. */
type EmailCodePurpose = "login" | "setup" | "client-mfa";

async function sendEmailCode(userId: number, purpose: EmailCodePurpose) {
  const s = await getSettings();
  if (!smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
  const [u] = await getDb().select().from(users).where(eq(users.id, userId));
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const issued = await transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"email-code:" + userId}))`);
    const [recent] = await tx
      .select({ id: emailCodes.id })
      .from(emailCodes)
      .where(
        and(
          eq(emailCodes.userId, userId),
          eq(emailCodes.purpose, purpose),
          isNull(emailCodes.usedAt),
          gt(emailCodes.expiresAt, sql`now() + make_interval(secs => ${EMAIL_CODE_MINUTES * 60 - EMAIL_RESEND_SECONDS})`),
        ),
      )
      .limit(1);
    if (recent) {
      // A desktop client starting its MFA login again within seconds keeps the code just sent
      // (still valid) instead of being refused: it needs the new login token of that start.
      if (purpose === "client-mfa") return false;
      throw tooManyRequests(MSG.codeRequestedTooSoon);
    }
    await tx.delete(emailCodes).where(and(eq(emailCodes.userId, userId), eq(emailCodes.purpose, purpose)));
    await tx.insert(emailCodes).values({
      userId,
      purpose,
      codeHash: emailCodeHash(userId, purpose, code),
      expiresAt: sql`now() + make_interval(secs => ${EMAIL_CODE_MINUTES * 60})` as unknown as Date,
    });
    return true;
  });
  if (!issued) return;
  const what = purpose === "login" ? "sign in" : purpose === "setup" ? "turn on e-mail codes" : "connect to the VPN";
  // A code that never reached the user must not hold back the next request.
  const forget = () =>
    getDb()
      .delete(emailCodes)
      .where(and(eq(emailCodes.userId, userId), eq(emailCodes.codeHash, emailCodeHash(userId, purpose, code))));
  await sendMail({
    to: u.email,
    subject: `${s.instanceName}: your verification code ${code}`,
    text: `Your code to ${what} at ${s.instanceName} is ${code}.\nIt is valid for ${EMAIL_CODE_MINUTES} minutes. If you did not ask for it, change your password.\n`,
    html: `<p>Your code to ${what} at ${escapeHtml(s.instanceName)} is</p><p style="font-size:24px;font-family:monospace;letter-spacing:4px"><b>${code}</b></p><p>It is valid for ${EMAIL_CODE_MINUTES} minutes. If you did not ask for it, change your password.</p>`,
  }).catch(async (err) => {
    await forget();
    throw err;
  });
}

async function consumeEmailCode(tx: Tx, userId: number, purpose: EmailCodePurpose, code: string): Promise<boolean> {
  const used = await tx
    .update(emailCodes)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(emailCodes.userId, userId),
        eq(emailCodes.purpose, purpose),
        eq(emailCodes.codeHash, emailCodeHash(userId, purpose, code)),
        isNull(emailCodes.usedAt),
        gt(emailCodes.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: emailCodes.id });
  return used.length > 0;
}

/** A code for a desktop client's MFA login to an MFA location (POST /client-mfa/start, method e-mail). */
export async function sendClientMfaEmailCode(userId: number): Promise<void> {
  await sendEmailCode(userId, "client-mfa");
}

/** Spend a client-MFA e-mail code (POST /client-mfa/finish); false when it is wrong, used or expired. */
export const consumeClientMfaEmailCode = (tx: Tx, userId: number, code: string) => consumeEmailCode(tx, userId, "client-mfa", code);

export async function emailInit(actor: Actor, userId: number) {
  await sendEmailCode(userId, "setup");
}

export async function emailEnable(actor: Actor, userId: number, code: string) {
  return transaction(async (tx) => {
    if (!(await consumeEmailCode(tx, userId, "setup", code))) throw badRequest(MSG.invalidCode, "code");
    await tx.update(users).set({ emailMfaEnabled: true }).where(eq(users.id, userId));
    return methodAdded(tx, actor, userId, "Email", "mfa_email_enabled");
  });
}

export async function emailDisable(actor: Actor, userId: number) {
  await transaction(async (tx) => {
    await tx.update(users).set({ emailMfaEnabled: false }).where(eq(users.id, userId));
    await tx.delete(emailCodes).where(eq(emailCodes.userId, userId));
    await refreshMfaState(tx, userId);
    await recordActivity(tx, actor, { event: "mfa_email_disabled" });
  });
}

// ---------------------------------------------------------------- WebAuthn

function rp() {
  const url = new URL(publicUrl());
  return { rpID: url.hostname, origin: url.origin };
}

export async function webauthnRegisterInit(session: Session) {
  const s = await getSettings();
  const userId = session.user.id;
  const [u] = await getDb().select().from(users).where(eq(users.id, userId));
  const existing = await getDb().select().from(webauthnCredentials).where(eq(webauthnCredentials.userId, userId));
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: s.instanceName,
    rpID: rp().rpID,
    userName: u.username,
    userDisplayName: `${u.firstName} ${u.lastName}`.trim() || u.username,
    userID: new TextEncoder().encode(`defguard-user-${u.id}`),
    attestationType: "none",
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
    authenticatorSelection: { residentKey: "discouraged", userVerification: "discouraged" },
  });
  await setSessionData(session.id, { ...session.data, webauthnRegChallenge: options.challenge });
  return options;
}

export async function webauthnRegisterFinish(actor: Actor, session: Session, name: string, credential: unknown) {
  const challenge = session.data.webauthnRegChallenge;
  if (typeof challenge !== "string") throw badRequest("start security key registration first");
  await setSessionData(session.id, { ...session.data, webauthnRegChallenge: null });
  let verification;
  try {
    verification = await (await webauthn()).verifyRegistrationResponse({
      response: credential as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp().origin,
      expectedRPID: rp().rpID,
      requireUserVerification: false,
    });
  } catch (err) {
    throw badRequest(`${MSG.failedToReadKey}: ${err instanceof Error ? err.message : "invalid response"}`);
  }
  if (!verification.verified) throw badRequest(MSG.failedToReadKey);
  const info = verification.registrationInfo;
  return transaction(async (tx) => {
    const [dup] = await tx
      .select({ id: webauthnCredentials.id })
      .from(webauthnCredentials)
      .where(eq(webauthnCredentials.credentialId, info.credential.id));
    if (dup) throw new AppError(409, MSG.keyAlreadyRegistered);
    await tx.insert(webauthnCredentials).values({
      userId: session.user.id,
      name,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      backedUp: info.credentialBackedUp,
    });
    return methodAdded(tx, actor, session.user.id, "Webauthn", "mfa_security_key_added");
  });
}

export async function listSecurityKeys(userId: number) {
  return getDb()
    .select({ id: webauthnCredentials.id, name: webauthnCredentials.name })
    .from(webauthnCredentials)
    .where(eq(webauthnCredentials.userId, userId))
    .orderBy(webauthnCredentials.id);
}

export async function deleteSecurityKey(actor: Actor, userId: number, keyId: number) {
  await transaction(async (tx) => {
    const removed = await tx
      .delete(webauthnCredentials)
      .where(and(eq(webauthnCredentials.id, keyId), eq(webauthnCredentials.userId, userId)))
      .returning();
    if (!removed.length) throw notFound("security key not found");
    await refreshMfaState(tx, userId);
    await recordActivity(tx, actor, { event: "mfa_security_key_removed", description: `Removed security key ${removed[0].name}` });
  });
}

export async function renameSecurityKey(actor: Actor, userId: number, keyId: number, name: string) {
  await transaction(async (tx) => {
    const updated = await tx
      .update(webauthnCredentials)
      .set({ name })
      .where(and(eq(webauthnCredentials.id, keyId), eq(webauthnCredentials.userId, userId)))
      .returning();
    if (!updated.length) throw notFound("security key not found");
    await recordActivity(tx, actor, { event: "mfa_security_key_renamed", description: `Renamed security key to ${name}` });
  });
}

// ---------------------------------------------------------------- MFA on / off

export async function enableMfa(actor: Actor, userId: number, method?: MfaMethod) {
  return transaction(async (tx) => {
    const m = await methodsOf(tx, userId);
    const has = { OneTimePassword: m.totp, Webauthn: m.webauthn, Email: m.email };
    const chosen = method ?? (m.user.mfaMethod !== "None" ? (m.user.mfaMethod as MfaMethod) : undefined) ??
      (m.totp ? "OneTimePassword" : m.webauthn ? "Webauthn" : m.email ? "Email" : undefined);
    if (!chosen || !has[chosen]) throw badRequest(MSG.methodNotConfigured, "method");
    await tx.update(users).set({ mfaEnabled: true, mfaMethod: chosen }).where(eq(users.id, userId));
    const codes = await issueRecoveryCodesIfNone(tx, userId);
    await recordActivity(tx, actor, { event: "mfa_enabled", description: `Default method: ${chosen}` });
    return { codes };
  });
}

/** DELETE /auth/mfa and admin DELETE /user/{username}/mfa: everything MFA is wiped. */
export async function disableMfa(actor: Actor, userId: number) {
  await transaction(async (tx) => {
    await tx
      .update(users)
      .set({ mfaEnabled: false, mfaMethod: "None", totpEnabled: false, emailMfaEnabled: false })
      .where(eq(users.id, userId));
    await tx.delete(mfaSecrets).where(eq(mfaSecrets.userId, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await tx.delete(webauthnCredentials).where(eq(webauthnCredentials.userId, userId));
    await tx.delete(emailCodes).where(eq(emailCodes.userId, userId));
    const [u] = await tx.select({ username: users.username }).from(users).where(eq(users.id, userId));
    await recordActivity(tx, actor, {
      event: actor.userId === userId ? "mfa_disabled" : "user_mfa_disabled",
      description: actor.userId === userId ? "MFA disabled" : `MFA disabled for ${u?.username ?? userId}`,
    });
  });
}

// ---------------------------------------------------------------- the second sign-in step

function requirePending(session: Session) {
  if (session.state !== "password_verified") throw badRequest(MSG.noPendingLogin);
}

/**
 * Run one second-factor check under the sign-in lockout: a locked login is refused, a wrong
 * answer counts as a failure, a right one replaces the session with an authenticated one.
 */
async function secondFactor(
  session: Session,
  meta: RequestMeta,
  method: string,
  check: (tx: Tx) => Promise<boolean>,
  failMsg: string = MSG.invalidCode,
): Promise<{ token: string; userId: number }> {
  requirePending(session);
  const actor = { userId: session.user.id, username: session.user.username, ip: meta.ip };
  await assertNotLocked(session.user.username, meta.ip);
  const token = await transaction(async (tx) => {
    if (!(await check(tx))) return null;
    const t = await promoteSession(tx, session.id, session.user.id, meta);
    await recordActivity(tx, actor, { event: "user_mfa_login", description: `Second factor: ${method}` });
    return t;
  });
  if (!token) {
    await recordFailure(session.user.username, meta.ip, (tx) =>
      recordActivity(tx, actor, { event: "user_mfa_login_failed", description: `Second factor failed: ${method}` }),
    );
    throw unauthorized(failMsg);
  }
  await clearFailures(session.user.username, meta.ip);
  return { token, userId: session.user.id };
}

export async function verifyTotpLogin(session: Session, meta: RequestMeta, code: string) {
  const m = await methodsOf(getDb(), session.user.id);
  requirePending(session);
  if (!m.totp) throw badRequest(MSG.methodNotEnabled);
  return secondFactor(session, meta, "TOTP", (tx) => checkTotp(tx, session.user.id, code));
}

export async function sendEmailLoginCode(session: Session) {
  requirePending(session);
  const m = await methodsOf(getDb(), session.user.id);
  if (!m.email) throw badRequest(MSG.methodNotEnabled);
  await sendEmailCode(session.user.id, "login");
}

export async function verifyEmailLogin(session: Session, meta: RequestMeta, code: string) {
  requirePending(session);
  const m = await methodsOf(getDb(), session.user.id);
  if (!m.email) throw badRequest(MSG.methodNotEnabled);
  return secondFactor(session, meta, "e-mail code", (tx) => consumeEmailCode(tx, session.user.id, "login", code));
}

export async function verifyRecoveryLogin(session: Session, meta: RequestMeta, code: string) {
  const result = await secondFactor(
    session,
    meta,
    "recovery code",
    async (tx) => {
      const used = await tx
        .update(recoveryCodes)
        .set({ usedAt: sql`now()` })
        .where(
          and(
            eq(recoveryCodes.userId, session.user.id),
            eq(recoveryCodes.codeHash, recoveryHash(session.user.id, code)),
            isNull(recoveryCodes.usedAt),
          ),
        )
        .returning({ id: recoveryCodes.id });
      if (used.length) {
        await recordActivity(tx, { userId: session.user.id, username: session.user.username, ip: meta.ip }, {
          event: "recovery_code_used",
        });
      }
      return used.length > 0;
    },
    MSG.invalidRecovery,
  );
  return result;
}

export async function webauthnLoginStart(session: Session) {
  requirePending(session);
  const creds = await getDb().select().from(webauthnCredentials).where(eq(webauthnCredentials.userId, session.user.id));
  if (!creds.length) throw badRequest(MSG.methodNotEnabled);
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp().rpID,
    allowCredentials: creds.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    userVerification: "discouraged",
  });
  await setSessionData(session.id, { ...session.data, webauthnAuthChallenge: options.challenge });
  return options;
}

export async function verifyWebauthnLogin(session: Session, meta: RequestMeta, assertion: unknown) {
  requirePending(session);
  const challenge = session.data.webauthnAuthChallenge;
  if (typeof challenge !== "string") throw badRequest("start security key sign-in first");
  await setSessionData(session.id, { ...session.data, webauthnAuthChallenge: null });
  const a = assertion as AuthenticationResponseJSON;
  return secondFactor(
    session,
    meta,
    "security key",
    async (tx) => {
      const [cred] = await tx
        .select()
        .from(webauthnCredentials)
        .where(and(eq(webauthnCredentials.credentialId, a.id), eq(webauthnCredentials.userId, session.user.id)));
      if (!cred) return false;
      try {
        const v = await (await webauthn()).verifyAuthenticationResponse({
          response: a,
          expectedChallenge: challenge,
          expectedOrigin: rp().origin,
          expectedRPID: rp().rpID,
          credential: {
            id: cred.credentialId,
            publicKey: new Uint8Array(Buffer.from(cred.publicKey, "base64url")),
            counter: cred.counter,
            transports: cred.transports,
          },
          requireUserVerification: false,
        });
        if (!v.verified) return false;
        await tx
          .update(webauthnCredentials)
          .set({ counter: v.authenticationInfo.newCounter })
          .where(eq(webauthnCredentials.id, cred.id));
        return true;
      } catch {
        return false;
      }
    },
    MSG.failedToReadKey,
  );
}
