// Imports every adapter so it registers itself. Each platform helper adds one line here.
export { adapterFor } from "./registry";
