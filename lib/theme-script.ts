/**
 * The one inline script the console writes itself: it sets the theme class before the first
 * paint (components/theme/theme.ts). Kept apart from browser code because the server's
 * Content-Security-Policy allows it by its hash (lib/http/security-headers.ts).
 */
export const THEME_STORAGE_KEY = "defguard.theme";
export const DARK_QUERY = "(prefers-color-scheme: dark)";

export const THEME_SCRIPT = `(function(){try{var p=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});var d=p==="dark"||(p!=="light"&&matchMedia(${JSON.stringify(DARK_QUERY)}).matches);document.documentElement.classList.toggle("dark",d)}catch(e){}})()`;
