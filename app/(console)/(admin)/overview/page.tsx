import { OverviewDashboard } from "@/components/overview/overview-dashboard";
import { FREE_LIMITS } from "@/lib/enterprise/service";
import { adminSession } from "@/lib/auth/page-guard";

export default async function OverviewPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return <OverviewDashboard freeLimits={FREE_LIMITS} />;
}
