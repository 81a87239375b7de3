import { actorOf, json, route } from "@/lib/http/route";
import { authKeyCreateSchema } from "@/lib/authkeys/schema";
import { addAuthKey, listAuthKeys } from "@/lib/authkeys/service";

/** A user's SSH and GPG keys: [{id, name, key_type, key, user_id, yubikey_serial, yubikey_id, yubikey_name}]. */
export const GET = route({ access: "self-or-admin", self: "username" }, async ({ params }) => listAuthKeys(params.username));

/** Add a key {name, key_type: "ssh" | "gpg", key}: parsed and checked, 201 with the stored key. */
export const POST = route({ access: "self-or-admin", self: "username", body: authKeyCreateSchema }, async (ctx) =>
  json(await addAuthKey(actorOf(ctx), ctx.params.username, ctx.body), { status: 201 }),
);
