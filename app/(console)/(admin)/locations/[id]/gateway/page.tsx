import { notFound } from "next/navigation";
import { GatewaySetup } from "@/components/gateways/gateway-setup";
import { adminSession } from "@/lib/auth/page-guard";

export default async function GatewaySetupPage({ params }: { params: Promise<{ id: string }> }) {
  if (!(await adminSession())) return null;
  const { id } = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(id) || Number(id) > 2_147_483_647) notFound();
  return <GatewaySetup locationId={Number(id)} />;
}
