import { notFound } from "next/navigation";
import { RulePage } from "@/components/acl/rule-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function EditRulePage({ params }: { params: Promise<{ id: string }> }) {
  if (!(await adminSession())) return null;
  const { id } = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(id) || Number(id) > 2_147_483_647) notFound();
  return <RulePage id={Number(id)} />;
}
