"use client";

import { useEffect } from "react";
import { useRouter } from "next/navigation";
import { LoadingScreen } from "@/components/shell/loading-screen";

/**
 * Rendered by a server layout that refused the page for want of a session: sends the browser
 * to the login page with the current address as the return path (?r=).
 */
export function SignInRedirect() {
  const router = useRouter();
  useEffect(() => {
    const { pathname, search } = window.location;
    router.replace(`/login?r=${encodeURIComponent(pathname + search)}`);
  }, [router]);
  return <LoadingScreen />;
}
