/** Stylesheets imported by a module are bundled by esbuild into the page's one CSS file (scripts/build-web.mjs). */
declare module "*.css";
