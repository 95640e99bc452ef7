// Imports every adapter so it registers itself. Each platform helper adds one line here.
export { adapterFor } from "./registry";

import "./tiktok/adapter";
import "./youtube/adapter";
import "./pinterest/adapter";
