import { errorResponse, route } from "@/lib/http/route";
import { usernameAvailableSchema } from "@/lib/users/schema";
import { MSG, usernameAvailable } from "@/lib/users/service";

/** 200 when the username is free, 400 "username is already in use" when not (defguard behaviour). */
export const POST = route({ access: "admin", body: usernameAvailableSchema }, async ({ body }) =>
  (await usernameAvailable(body.username)) ? { available: true } : errorResponse(400, MSG.usernameTaken, { field: "username" }),
);
