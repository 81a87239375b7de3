/** Where an account sets up MFA when the instance requires it (a module of its own: the sign-in page imports nothing else of MFA up front). */
export const MFA_SETUP_PATH = "/mfa-setup";
