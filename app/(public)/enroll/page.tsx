import { EnrollScreen } from "@/components/enrollment/enroll-screen";

/** Public enrolment (the e-mailed link, ?token=…): password, device, welcome page. */
export default async function EnrollPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const raw = (await searchParams).token;
  return <EnrollScreen initialToken={typeof raw === "string" ? raw.trim() : ""} />;
}
