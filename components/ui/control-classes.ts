/**
 * Class strings of the form primitives, without the class merger (tailwind-merge) that cn()
 * brings: the primitives compose them with cn(), the sign-in page (components/login) uses them
 * on plain elements so its first download stays small.
 */
export const controlClasses = [
  "w-full rounded-md border border-border-strong bg-surface px-3 text-sm text-fg shadow-xs",
  "placeholder:text-fg-subtle transition-[border-color,box-shadow]",
  "focus-visible:border-accent focus-visible:outline-none focus-visible:ring-3 focus-visible:ring-ring/40",
  "disabled:cursor-not-allowed disabled:opacity-60",
  "aria-invalid:border-error aria-invalid:focus-visible:ring-error/25",
].join(" ");

/** A field's label (Label, label.tsx). */
export const labelClasses = "text-sm font-medium text-fg";
/** A field's error line (Field, field.tsx). */
export const fieldErrorClasses = "text-xs font-medium text-error first-letter:uppercase";
/** FormAlert's two tones (form-alert.tsx). */
export const formAlertClasses = {
  error: "rounded-md border border-error/30 bg-error-subtle px-3 py-2 text-sm font-medium text-error",
  info: "rounded-md border border-info/30 bg-info-subtle px-3 py-2 text-sm text-fg",
} as const;
