import { RulePage } from "@/components/acl/rule-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function NewRulePage() {
  if (!(await adminSession())) return null;
  return <RulePage id={null} />;
}
