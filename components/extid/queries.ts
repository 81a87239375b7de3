import { queryOptions } from "@tanstack/react-query";
import { api, apiRequest } from "@/lib/api/client";
import type { Stripped } from "@/lib/api/client";
import type { ProviderView as ProviderViewBody } from "@/lib/extid/service";

export type ProviderView = Stripped<ProviderViewBody>;

export type ProviderAnswer = { provider: ProviderView; settings: { create_account: boolean; username_handling: string } } | null;

/** GET /openid/provider: the provider, or null when none is set (204). */
export const openidProviderQuery = queryOptions({
  queryKey: ["openid", "provider"],
  queryFn: async ({ signal }) => {
    const res = await apiRequest<{ provider: ProviderViewBody; settings: { create_account: boolean; username_handling: string } }>("GET", "/openid/provider", undefined, { signal });
    return res.status === 204 ? null : (res.data as ProviderAnswer);
  },
});

export type DirsyncTest = { success: boolean; message: string; users?: number; groups?: number };
export const testDirectorySync = () => api.get<DirsyncTest>("/test_directory_sync");

export type DirsyncNow = { success: true; message: string; users: number; groups: number; changes: number; skipped: string[]; last_sync_at: string };
/** "Sync now": one directory sync right away (400 {msg} when it cannot run or failed). */
export const syncDirectoryNow = () => api.post<DirsyncNow>("/directory_sync");
