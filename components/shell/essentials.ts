import "server-only";
import { cache } from "react";
import { getEssentials } from "@/lib/settings/service";

/** Essentials for this request, or undefined when the database cannot answer (the client retries). */
export const loadEssentials = cache(async () => {
  try {
    return await getEssentials();
  } catch {
    return undefined;
  }
});
