import type { ReactNode } from "react";

interface SignInFrameProps {
  name: string;
  mainLogo: string;
  /** The language switch for the corner. */
  corner: ReactNode;
  /** Room for content such as a device configuration with its QR code. */
  wide?: boolean;
  children: ReactNode;
}

/**
 * The signed-out pages' frame: language switch in the corner, main logo and instance name above
 * a card. No hooks: the sign-in page renders it on the server, the other signed-out pages
 * through AuthFrame (login-screen.tsx).
 */
export function SignInFrame({ name, mainLogo, corner, wide = false, children }: SignInFrameProps) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex justify-end p-4">{corner}</header>
      <main className="flex flex-1 flex-col items-center px-4 pb-16 pt-4 md:justify-center md:pt-0">
        <div className={wide ? "w-full max-w-3xl" : "w-full max-w-sm"}>
          <div className="mb-8 flex flex-col items-center gap-4 text-center">
            <img src={mainLogo} alt="" className="max-h-[100px] max-w-[250px] object-contain" />
            <p className="text-sm font-medium text-fg-muted">{name}</p>
          </div>
          <div className="rounded-lg border border-border bg-surface p-6 shadow-sm md:p-8">{children}</div>
        </div>
      </main>
    </div>
  );
}
