import { PasswordResetScreen } from "@/components/users/password-reset-screen";

/** The page of the e-mailed reset link (?token=): choose a new password. */
export default async function PasswordResetPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const raw = (await searchParams).token;
  const token = typeof raw === "string" ? raw.trim() : "";
  return <PasswordResetScreen token={token} />;
}
